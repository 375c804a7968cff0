#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL

/// Reading stored derived values and whole records, for previews, verification and reports: reads
/// only, never a write.
extension PostgresStore: StoredValueReading, VerificationSource {
    /// How this store binds the values it is given: ``PostgresStorage/rules``.
    public var storageRules: StorageRules { PostgresStorage.rules }

    /// Whether ``prepare(_:)`` would change anything for the pipeline.
    public func needsPreparation(_ pipeline: Pipeline) async throws -> Bool {
        let schema = PostgresPipelineSchema(tables: PostgresPipelineTables(pipeline))
        let logger = self.logger
        return try await withConnection("read") { try await !schema.changes($0, logger).isEmpty }
    }

    /// The stored derived values of the given records.
    public func storedRows(of pipeline: Pipeline, recordIDs: [Int64]) async throws -> [Int64: StoredRow] {
        guard !recordIDs.isEmpty else { return [:] }
        let tables = PostgresPipelineTables(pipeline)
        var statement = SQLStatement()
        statement.sql = """
            SELECT t.\(tables.id), \(tables.keyExpression), \(Self.derivedRow(tables))
            WHERE t.\(tables.id) = ANY(\(statement.bind(recordIDs)))
            """
        let logger = self.logger
        return try await withConnection("read") { [statement] connection in
            var rows: [Int64: StoredRow] = [:]
            for try await row in try await connection.run(statement, logger: logger) {
                let cells = row.makeRandomAccess()
                let present = try cells[2].decode(Bool.self)
                let values = present ? try Self.values(cells, from: 3, pipeline.outputColumns) : nil
                rows[try cells[0].decode(Int64.self)] = StoredRow(key: try cells[1].decode(String?.self), values: values)
            }
            return rows
        }
    }

    /// Records after the cursor, in id order, with their payloads and stored values.
    public func storedRecords(of pipeline: Pipeline, after cursor: Int64?, limit: Int) async throws -> [StoredRecord] {
        let tables = PostgresPipelineTables(pipeline)
        var statement = SQLStatement()
        let condition = "t.\(tables.id) > \(statement.bind(cursor ?? Int64.min)) ORDER BY t.\(tables.id) LIMIT \(statement.bind(Int64(limit)))"
        return try await storedRecords(tables, statement, where: condition)
    }

    /// The given records with their payloads and stored values.
    public func storedRecords(of pipeline: Pipeline, ids: [Int64]) async throws -> [StoredRecord] {
        guard !ids.isEmpty else { return [] }
        let tables = PostgresPipelineTables(pipeline)
        var statement = SQLStatement()
        let condition = "t.\(tables.id) = ANY(\(statement.bind(ids))) ORDER BY t.\(tables.id)"
        return try await storedRecords(tables, statement, where: condition)
    }

    /// A uniform random sample of record ids, drawn by the server.
    public func sampleRecordIDs(of pipeline: Pipeline, count: Int) async throws -> [Int64] {
        let tables = PostgresPipelineTables(pipeline)
        var statement = SQLStatement()
        statement.sql = "SELECT \(tables.id) FROM \(tables.table) ORDER BY random() LIMIT \(statement.bind(Int64(count)))"
        let logger = self.logger
        return try await withConnection("read") { [statement] connection in
            try await connection.run(statement, logger: logger).collect { try $0.decode(Int64.self) }.sorted()
        }
    }

    /// Records with their payload, derived values and stamps, read in one snapshot.
    private func storedRecords(_ tables: PostgresPipelineTables, _ statement: SQLStatement, where condition: String) async throws -> [StoredRecord] {
        let pipeline = tables.pipeline
        let reader = try await payloadColumn(tables).reader(tables.payload)
        var statement = statement
        // Each processor's stamp as its version and whether it is current, from one scan of the record's stamps.
        var folded: [String] = []
        for (index, processor) in pipeline.processors.enumerated() {
            let name = statement.bind(processor.name)
            folded.append("max(x.version) FILTER (WHERE x.processor = \(name)) AS version\(index)")
            folded.append("bool_or(x.current) FILTER (WHERE x.processor = \(name)) AS current\(index)")
        }
        let stamps = pipeline.processors.indices.map { "s.version\($0), s.current\($0)" }
        statement.sql = """
            SELECT t.\(tables.id), \(tables.keyExpression), \(reader), \(stamps.joined(separator: ", ")), \(Self.derivedRow(tables))
            CROSS JOIN LATERAL (SELECT \(folded.joined(separator: ", ")) FROM rederive_stamps x
                WHERE x.pipeline = \(statement.bind(pipeline.name)) AND x.record_id = t.\(tables.id)) s
            WHERE \(condition)
            """
        let logger = self.logger
        // After the id, key, payload and the stamps: whether the record has a row of derived values, then its values.
        let presentColumn = 3 + 2 * pipeline.processors.count
        return try await transaction("read", snapshot: true) { [statement] connection in
            try await connection.run(statement, logger: logger).collect { row in
                let cells = row.makeRandomAccess()
                // Without a row of derived values every column reads NULL, whatever its default, as on every store.
                let flat = try cells[presentColumn].decode(Bool.self)
                    ? try Self.values(cells, from: presentColumn + 1, pipeline.outputColumns) : pipeline.outputColumns.map { _ in .null }
                var next = flat.makeIterator()
                return StoredRecord(
                    recordID: try cells[0].decode(Int64.self),
                    key: try cells[1].decode(String?.self),
                    payload: try cells[2].decode(ByteBuffer?.self).map { Array($0.readableBytesView) },
                    values: pipeline.processors.map { processor in processor.columns.map { _ in next.next() ?? .null } },
                    stamps: try pipeline.processors.indices.map { index in
                        guard let version = try cells[3 + 2 * index].decode(Int32?.self) else { return nil }
                        return StoredRecord.Stamp(version: Int(version), current: try cells[4 + 2 * index].decode(Bool.self))
                    }
                )
            }
        }
    }

    /// `present, column…` over `t`, the pipeline's table, joined to its derived values: whether the
    /// record has a row of derived values, then every output column. Ends with the FROM clause.
    static func derivedRow(_ tables: PostgresPipelineTables) -> String {
        let names = tables.pipeline.outputColumns.map { PostgresSQL.identifier($0.name) }
        switch tables.pipeline.layout {
        case .inline:
            return "true\(names.map { ", t.\($0)" }.joined()) FROM \(tables.table) t"
        case .companion:
            return """
                d.\(tables.destinationID) IS NOT NULL\(names.map { ", d.\($0)" }.joined()) FROM \(tables.table) t
                LEFT JOIN \(tables.destination) d ON d.\(tables.destinationID) = t.\(tables.id)
                """
        }
    }

    /// The values of `columns`, from cell `start` on.
    static func values(_ cells: PostgresRandomAccessRow, from start: Int, _ columns: [OutputColumn]) throws -> [DerivedValue] {
        try columns.enumerated().map { offset, column in try PostgresBatchWriter.value(cells[start + offset], column.type) }
    }
}
#endif
