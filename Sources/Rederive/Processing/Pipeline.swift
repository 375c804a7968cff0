import Foundation

/// Binds processors to one table: where records live, which column holds their payload, how the
/// payload decodes, and where the derived values go.
///
/// Each record's payload is inflated and decoded once and shared by every processor of the pipeline
/// that is stale for that record.
///
/// ```swift
/// let rooms = Pipeline(
///     name: "rooms",
///     table: "room_scans",
///     keyColumn: "scan_id",
///     payloadColumn: "payload",
///     decoding: Room.self,
///     processors: [floorArea, wallCount]
/// )
/// ```
public struct Pipeline: Sendable {
    /// Where a pipeline's derived columns live.
    public enum Layout: Sendable, Hashable {
        /// A table owned by rederive, one row per record, keyed by the record's id and removed with it.
        /// Writing derived values never rewrites the record, however large its payload.
        case companion(table: String)
        /// Columns of the record's own table, for existing schemas that already hold them.
        case inline
    }

    /// The pipeline's stable name, which `--pipeline` selects.
    public let name: String
    /// The table that holds the records and their payloads.
    public let table: String
    /// The record's integer id, the table's `INTEGER PRIMARY KEY`.
    public let idColumn: String
    /// A human-readable unique key shown in reports (a file name, a UUID), if the table has one.
    public let keyColumn: String?
    /// The column that holds each record's payload: JSON, usually compressed.
    public let payloadColumn: String
    /// Where the derived columns live: a companion table (the default) or the record's own table.
    public let layout: Layout
    /// The processors' names, versions and columns, in registration order.
    public let processors: [ProcessorDescriptor]
    /// The version of the pipeline's ``Projection``, nil when it keeps none: stores keep projections
    /// only for pipelines that declare one, and read only those of this version.
    public let projectionVersion: Int?
    /// Which processors read which, and an order with every processor after its inputs.
    let graph: ProcessorGraph
    let evaluator: Evaluator
    /// The projection of an inflated payload: decoded, then encoded by the pipeline's ``Projection``.
    let project: (@Sendable ([UInt8]) throws -> [UInt8])?

    /// A pipeline whose payload decodes with the given function.
    public init<Payload: Sendable>(
        name: String,
        table: String,
        idColumn: String = "id",
        keyColumn: String? = nil,
        payloadColumn: String = "payload",
        layout: Layout? = nil,
        decode: @escaping @Sendable ([UInt8]) throws -> Payload,
        projection: Projection<Payload>? = nil,
        processors: [Processor<Payload>]
    ) {
        self.name = name
        self.table = table
        self.idColumn = idColumn
        self.keyColumn = keyColumn
        self.payloadColumn = payloadColumn
        self.layout = layout ?? .companion(table: "\(table)_derived")
        self.processors = processors.map(\.descriptor)
        self.graph = ProcessorGraph(self.processors)
        self.projectionVersion = projection?.version
        if let projection {
            self.project = { @Sendable (json: [UInt8]) throws -> [UInt8] in try projection.encode(try decode(json)) }
        } else {
            self.project = nil
        }
        self.evaluator = Evaluator(decode: decode, projection: projection, processors: processors, graph: graph)
    }

    /// A pipeline whose payload is JSON decoded with `JSONDecoder` into `Payload`.
    public init<Payload: Decodable & Sendable>(
        name: String,
        table: String,
        idColumn: String = "id",
        keyColumn: String? = nil,
        payloadColumn: String = "payload",
        layout: Layout? = nil,
        decoding payloadType: Payload.Type,
        projection: Projection<Payload>? = nil,
        processors: [Processor<Payload>]
    ) {
        self.init(
            name: name,
            table: table,
            idColumn: idColumn,
            keyColumn: keyColumn,
            payloadColumn: payloadColumn,
            layout: layout,
            decode: { bytes in try JSONDecoder().decode(Payload.self, from: Data(bytes)) },
            projection: projection,
            processors: processors
        )
    }

    /// All output columns of all processors, in processor order.
    public var outputColumns: [OutputColumn] {
        processors.flatMap(\.columns)
    }

    /// The processor with this name, if the pipeline has it.
    public func processor(named name: String) -> ProcessorDescriptor? {
        processors.first { $0.name == name }
    }

    /// The names of the processors whose columns `processor` reads, each once.
    public func inputs(of processor: String) -> [String] {
        self.processor(named: processor)?.inputProcessors ?? []
    }

    /// What a dependent's stamp keeps of the inputs it derived from: each input processor's name and
    /// current version, as in `floor_area@2,section_labels@1`; nil for a processor without inputs.
    public func inputVersions(of processor: Int) -> String? {
        let inputs = graph.inputs[processor]
        guard !inputs.isEmpty else { return nil }
        return inputs.map { "\(processors[$0].name)@\(processors[$0].version)" }.joined(separator: ",")
    }

    /// The processors that read `processor`'s columns, directly or through others, in derivation order.
    public func dependents(of processor: String) -> [String] {
        guard let index = processors.firstIndex(where: { $0.name == processor }) else { return [] }
        let reached = graph.downstream(of: [index]).subtracting([index])
        return graph.order.filter(reached.contains).map { processors[$0].name }
    }
}

/// What one processor produced for one record.
public enum ProcessorOutcome: Sendable, Hashable {
    /// The values for the processor's columns, in their declared order.
    case derived([DerivedValue])
    /// Why the record could not be derived: the kind of failure and a one-line message.
    case failed(FailureKind, String)
}

extension ProcessorDescriptor {
    /// Why `values` cannot be stored in this processor's columns, or `nil` when they can. A wrong
    /// number of values is not this record's problem but the processor's: it passes here, and the
    /// runner, dry run, verify and stores stop on it (``RecordResult/valueCountError(in:)``).
    func check(_ values: [DerivedValue]) -> String? {
        guard values.count == columns.count else { return nil }
        for (value, column) in zip(values, columns) where !value.fits(column.type) {
            return "returned \(value) for \(column.type.description) column \(column.name)"
        }
        return nil
    }
}
