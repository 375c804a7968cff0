import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQL

/// Storing a batch of results in one transaction.
extension SQLiteStore {
    /// Commits in one write transaction, fenced by the runner lease and each record's payload generation.
    public func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> RunCounts {
        guard !results.isEmpty else { return RunCounts() }
        // Values are written by position: a result with too few or too many is refused whole.
        if let error = results.lazy.compactMap({ $0.valueCountError(in: plan.pipeline) }).first {
            throw error
        }
        let writer = BatchWriter(tables: PipelineTables(plan.pipeline), runID: runID, now: Timestamp.text(Date()))
        return try await write { db in
            if let lease {
                try Self.checkLease(lease, db)
            }
            let statements = try CommitStatements(db, writer.tables)
            var counts = RunCounts()
            var stamps = StampBatch()
            var known = try StoredStates(of: results, writer.tables, db)
            for result in results {
                // A record met twice sees its first result's stamps, as when each is stored in turn.
                if stamps.holds(result.recordID) {
                    try writer.write(stamps, db, statements)
                    stamps = StampBatch()
                }
                try writer.store(result, db, statements, known: known.take(result.recordID), stamps: &stamps, into: &counts)
            }
            try writer.write(stamps, db, statements)
            return counts
        }
    }
}

/// Writes one batch's results.
struct BatchWriter: Sendable {
    let tables: PipelineTables
    let runID: Int64
    let now: String

    /// Stores one record's values and failures; the stamps of the processors that derived it join
    /// `stamps`, which ``write(_:_:_:)`` stores once every record of the batch is. `known` is what
    /// ``StoredStates`` read of the record for this commit, nil to read it here.
    func store(
        _ result: RecordResult, _ db: Database, _ statements: CommitStatements, known: StoredStates.State?,
        stamps: inout StampBatch, into counts: inout RunCounts
    ) throws {
        // The payload the values were derived from must still be the record's payload.
        let current = try known.map(\.generation)
            ?? Int64.fetchOne(statements.generation, arguments: [tables.pipeline.table, result.recordID])
        guard current == result.generation else {
            counts.skipped += 1
            return
        }
        if let projection = result.projection, let version = tables.pipeline.projectionVersion {
            // Kept with the values derived from the same payload, fenced by the same generation.
            try statements.writeProjection.execute(arguments: [
                tables.pipeline.name, result.recordID, result.generation, version, PayloadCodec.digest(projection),
                result.payloadDigest, Data(projection),
            ])
        }
        let processors = tables.pipeline.processors
        let (derivedIndices, derivedValues, failures) = result.committable
        for failure in failures {
            try recordFailure(processors[failure.processor], kind: failure.kind, message: failure.message, result, db)
        }
        var changed = false
        if !derivedIndices.isEmpty {
            let derivedProcessors = derivedIndices.map { processors[$0] }
            let stored = try known.map { $0.values(of: derivedIndices) }
                ?? Row.fetchOne(try statements.selectValues(derivedIndices), arguments: [result.recordID]).map {
                    $0.databaseValues.map(DerivedValue.init)
                }
            changed = try writeValues(derivedIndices, derivedValues, stored: stored, recordID: result.recordID, statements)
            if changed {
                try keepReplaced(derivedProcessors, derivedValues, stored: stored, result, db)
            }
            stamps.add(derivedIndices, of: result)
        }
        counts.count(failed: !failures.isEmpty, changed: changed)
    }

    /// Writes derived values unless they equal the `stored` ones (nil when the record has no row of
    /// derived values); returns whether anything changed. Skipping equal values spares the write, and
    /// in the inline layout the rewrite of the whole record.
    private func writeValues(
        _ processors: [Int], _ derived: [DerivedValue], stored: [DerivedValue]?, recordID: Int64, _ statements: CommitStatements
    ) throws -> Bool {
        if let stored, stored.isUnchanged(byStoring: derived, in: processors.flatMap { tables.pipeline.processors[$0].columns }) {
            return false
        }
        let values = derived.map(\.databaseValue)
        let write = try statements.writeValues(processors)
        switch tables.pipeline.layout {
        case .companion:
            try write.execute(arguments: StatementArguments([recordID.databaseValue] + values))
        case .inline:
            try write.execute(arguments: StatementArguments(values + [recordID.databaseValue]))
        }
        return true
    }

    /// Stamps the processors that derived the batch's records and clears their failures: a few
    /// statements per processor for the whole batch rather than two per record. Records are
    /// independent of each other, so writing every stamp last leaves the same rows as stamping each
    /// record as it is stored.
    func write(_ batch: StampBatch, _ db: Database, _ statements: CommitStatements) throws {
        let pipeline = tables.pipeline
        for (index, stamps) in batch.stamps.sorted(by: { $0.key < $1.key }) {
            let processor = pipeline.processors[index]
            let shared: [(any DatabaseValueConvertible)?] = [
                pipeline.name, processor.name, pipeline.table, processor.version, pipeline.inputVersions(of: index), runID, now,
            ]
            try Self.execute(statements.stamps(ofRecords:), for: stamps, after: shared) { stamp in
                [stamp.recordID, stamp.generation, stamp.payloadDigest, stamp.inputsDigest]
            }
            // Most processors have no failure at all: then there is nothing to look up record by record.
            guard try statements.hasFailures(processor: processor.name) else { continue }
            try Self.execute(statements.clearFailures(ofRecords:), for: stamps, after: [pipeline.name, processor.name]) { stamp in
                [stamp.recordID]
            }
        }
    }

    /// Runs the statement `statement(n)` of n records once per chunk of `stamps`
    /// (``StampBatch/chunks(of:)``), with the arguments `shared`, then `values` of each stamp.
    private static func execute(
        _ statement: (Int) throws -> Statement, for stamps: [StampBatch.Stamp], after shared: [(any DatabaseValueConvertible)?],
        values: (StampBatch.Stamp) -> [(any DatabaseValueConvertible)?]
    ) throws {
        for chunk in StampBatch.chunks(of: stamps.count) {
            var arguments = shared
            for stamp in stamps[chunk] {
                arguments += values(stamp)
            }
            try statement(chunk.count).execute(arguments: StatementArguments(arguments))
        }
    }

    private func recordFailure(
        _ processor: ProcessorDescriptor, kind: FailureKind, message: String, _ result: RecordResult, _ db: Database
    ) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO rederive_failures
                (pipeline, processor, record_id, source, version, generation, current, kind, message, run_id, failed_at)
            VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
            ON CONFLICT (pipeline, processor, record_id) DO UPDATE SET
                version = excluded.version, generation = excluded.generation, current = 1,
                kind = excluded.kind, message = excluded.message,
                run_id = excluded.run_id, failed_at = excluded.failed_at
            """)
        try upsert.execute(arguments: [
            tables.pipeline.name, processor.name, result.recordID, tables.pipeline.table, processor.version,
            result.generation, kind.rawValue, message, runID, now,
        ])
        // A processor that failed no longer vouches for the values it holds: a dependent whose inputs
        // changed, or failed, must not count as up to date.
        try db.cachedStatement(sql: """
            UPDATE rederive_stamps SET current = 0 WHERE pipeline = ? AND processor = ? AND record_id = ? AND current = 1
            """).execute(arguments: [tables.pipeline.name, processor.name, result.recordID])
    }
}

/// The stamps a batch earned, gathered while its records are stored and written together by
/// ``BatchWriter/write(_:_:_:)``.
struct StampBatch {
    /// What varies from one stamp of a processor to the next.
    struct Stamp {
        let recordID: Int64
        let generation: Int64
        let payloadDigest: Int64
        let inputsDigest: Int64?
    }

    /// The stamps to upsert, by the index of the processor that derived them.
    private(set) var stamps: [Int: [Stamp]] = [:]
    private var records: Set<Int64> = []

    /// Whether a stamp of the record is among the stamps.
    func holds(_ recordID: Int64) -> Bool {
        records.contains(recordID)
    }

    /// Adds the stamps of the processors at `indices` that derived `result`.
    mutating func add(_ indices: [Int], of result: RecordResult) {
        for index in indices {
            stamps[index, default: []].append(Stamp(
                recordID: result.recordID, generation: result.generation, payloadDigest: result.payloadDigest,
                inputsDigest: result.inputDigests[index]
            ))
        }
        if !indices.isEmpty { records.insert(result.recordID) }
    }

    /// The most records one statement of a commit names (stamps, failures cleared, ``StoredStates``):
    /// at four values a record at most, within the 999 arguments SQLite before 3.32 allows a statement.
    static let chunkLimit = 128

    /// Ranges of `count` records, each of a power of two records up to ``chunkLimit``, so that a few
    /// statements serve every batch size.
    static func chunks(of count: Int) -> [Range<Int>] {
        var chunks: [Range<Int>] = []
        var start = 0
        while start < count {
            var size = chunkLimit
            while size > count - start { size /= 2 }
            chunks.append(start..<start + size)
            start += size
        }
        return chunks
    }
}

/// What a commit needs to know of its records before it stores them, read for the whole batch in a
/// few statements rather than two per record: each record's generation and, for the processors that
/// derived any record of the batch, the values stored now.
struct StoredStates {
    /// One record's generation and stored values.
    struct State {
        let generation: Int64
        /// The values of ``StoredStates/processors``' columns, in their order; nil when the record has no
        /// row of derived values.
        let stored: [DerivedValue]?
        /// Where each processor's columns start in `stored`.
        let offsets: [Int: Int]
        let pipeline: Pipeline

        /// The stored values of `processors`' columns, in that order.
        func values(of processors: [Int]) -> [DerivedValue]? {
            guard let stored else { return nil }
            var values: [DerivedValue] = []
            for processor in processors {
                let start = offsets[processor]!
                values += stored[start..<start + pipeline.processors[processor].columns.count]
            }
            return values
        }
    }

    private var states: [Int64: State] = [:]

    /// Reads the state of the results' records; a record no longer in `rederive_records` has none.
    init(of results: [RecordResult], _ tables: PipelineTables, _ db: Database) throws {
        let pipeline = tables.pipeline
        let processors = Set(results.flatMap { $0.outcomes.compactMap { if case .derived = $0.outcome { $0.processor } else { nil } } }).sorted()
        var offsets: [Int: Int] = [:]
        var columns: [String] = []
        for processor in processors {
            offsets[processor] = columns.count
            columns += pipeline.processors[processor].columns.map { "d.\(SQL.identifier($0.name))" }
        }
        let ids = results.map(\.recordID)
        for chunk in StampBatch.chunks(of: ids.count) {
            let statement = try db.cachedStatement(sql: """
                SELECT r.record_id, r.generation, d.\(tables.destinationID) IS NOT NULL\(columns.map { ", " + $0 }.joined())
                FROM rederive_records r LEFT JOIN \(tables.destination) d ON d.\(tables.destinationID) = r.record_id
                WHERE r.source = ? AND r.record_id IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))
                """)
            var arguments: [(any DatabaseValueConvertible)?] = [pipeline.table]
            arguments.reserveCapacity(1 + chunk.count)
            for id in ids[chunk] { arguments.append(id) }
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
            while let row = try rows.next() {
                let stored: [DerivedValue]? = if row[2] as Bool {
                    (3..<3 + columns.count).map { DerivedValue(row[$0] as DatabaseValue) }
                } else {
                    nil
                }
                states[row[0]] = State(generation: row[1], stored: stored, offsets: offsets, pipeline: pipeline)
            }
        }
    }

    /// The record's state as read, once: nil for a record met again in the batch, whose first result
    /// may have changed its values, and for one no longer in `rederive_records`; the caller reads
    /// those itself.
    mutating func take(_ recordID: Int64) -> State? {
        states.removeValue(forKey: recordID)
    }
}
