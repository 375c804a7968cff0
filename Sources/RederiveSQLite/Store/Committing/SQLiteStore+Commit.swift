import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQL

/// Storing a batch of results in one transaction.
extension SQLiteStore {
    /// Commits in one write transaction, fenced by the runner lease and each record's payload
    /// generation: reads what the batch's `CommitPlan` needs of its records, then writes the plan.
    public func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> CommitOutcome {
        guard !results.isEmpty else { return .empty }
        let batch = try CommitBatch(results, of: plan.pipeline)
        let writer = BatchWriter(tables: PipelineTables(plan.pipeline), runID: runID, now: Timestamp.text(Date()))
        return try await commitTransaction { db in
            if let lease {
                try Self.checkLease(lease, db)
            }
            let statements = try CommitStatements(db, writer.tables)
            let stored = try StoredStates.read(batch, writer.tables, db)
            let commit = batch.plan(stored: stored, rules: SQLiteStorage.rules)
            for step in commit.steps {
                try writer.write(step, db, statements)
            }
            return commit.outcome
        }
    }
}

/// Writes one batch's plan.
struct BatchWriter: Sendable {
    let tables: PipelineTables
    let runID: Int64
    let now: String

    /// Writes one step of a plan: projections, failures, values, what they replace, then the stamps
    /// (after the replaced stamps are kept).
    func write(_ step: CommitWrites, _ db: Database, _ statements: CommitStatements) throws {
        let pipeline = tables.pipeline
        if let write = step.projections.isEmpty ? nil : try statements.writeProjection {
            for projection in step.projections {
                // Kept with the values derived from the same payload, fenced by the same generation.
                try write.execute(arguments: [
                    pipeline.name, projection.recordID, projection.generation, projection.version,
                    PayloadCodec.digest(projection.bytes), projection.payloadDigest, Data(projection.bytes),
                ])
            }
        }
        for failure in step.failures {
            try recordFailure(failure, db)
        }
        for write in step.values {
            try writeValues(write, statements)
        }
        try keepReplaced(step.replaced, db, statements)
        try self.write(StampBatch(step.stamps), db, statements)
    }

    /// Writes one record's derived values; in the inline layout this rewrites the whole record, which
    /// is why the plan spares values that did not change.
    private func writeValues(_ write: ValueWrite, _ statements: CommitStatements) throws {
        let values = write.values.map(\.databaseValue)
        let statement = try statements.writeValues(write.processors)
        switch tables.pipeline.layout {
        case .companion:
            try statement.execute(arguments: StatementArguments([write.recordID.databaseValue] + values))
        case .inline:
            try statement.execute(arguments: StatementArguments(values + [write.recordID.databaseValue]))
        }
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

    /// Runs the statement `statement(n)` of n records once per chunk of `rows`
    /// (``StampBatch/chunks(of:)``), with the arguments `shared`, then `values` of each row.
    static func execute<Row>(
        _ statement: (Int) throws -> Statement, for rows: [Row], after shared: [(any DatabaseValueConvertible)?],
        values: (Row) -> [(any DatabaseValueConvertible)?]
    ) throws {
        for chunk in StampBatch.chunks(of: rows.count) {
            var arguments = shared
            for row in rows[chunk] {
                arguments += values(row)
            }
            try statement(chunk.count).execute(arguments: StatementArguments(arguments))
        }
    }

    private func recordFailure(_ failure: FailureWrite, _ db: Database) throws {
        let processor = tables.pipeline.processors[failure.processor]
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
            tables.pipeline.name, processor.name, failure.recordID, tables.pipeline.table, processor.version,
            failure.generation, failure.kind.rawValue, failure.message, runID, now,
        ])
        // A processor that failed no longer vouches for the values it holds: a dependent whose inputs
        // changed, or failed, must not count as up to date.
        try db.cachedStatement(sql: """
            UPDATE rederive_stamps SET current = 0 WHERE pipeline = ? AND processor = ? AND record_id = ? AND current = 1
            """).execute(arguments: [tables.pipeline.name, processor.name, failure.recordID])
    }
}

/// The stamps of one step of a plan, by processor, for ``BatchWriter/write(_:_:_:)`` to write in a
/// few statements per processor rather than two per record.
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

    /// The stamps of `writes`, each record at most once.
    init(_ writes: [StampWrite]) {
        for write in writes {
            for index in write.processors {
                stamps[index, default: []].append(Stamp(
                    recordID: write.recordID, generation: write.generation, payloadDigest: write.payloadDigest,
                    inputsDigest: write.inputDigests[index]
                ))
            }
        }
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

/// What a commit's plan needs to know of its records before it stores them, read for the whole
/// batch in a few statements rather than two per record: each record's generation and, for the
/// processors that derived any record of the batch, the values stored now.
enum StoredStates {
    /// Reads the state of the batch's records; a record no longer in `rederive_records` has none.
    static func read(_ batch: CommitBatch, _ tables: PipelineTables, _ db: Database) throws -> [Int64: StoredCommitState] {
        let pipeline = tables.pipeline
        let processors = batch.derivedProcessors
        let columns = processors.flatMap { pipeline.processors[$0].columns.map { "d.\(SQL.identifier($0.name))" } }
        var seen: Set<Int64> = []
        let ids = batch.recordIDs.filter { seen.insert($0).inserted }
        var states: [Int64: StoredCommitState] = [:]
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
                var values: [Int: [DerivedValue]]? = nil
                if row[2] as Bool {
                    var offset = 3
                    values = [:]
                    for index in processors {
                        let count = pipeline.processors[index].columns.count
                        values?[index] = (offset..<offset + count).map { DerivedValue(row[$0] as DatabaseValue) }
                        offset += count
                    }
                }
                states[row[0]] = StoredCommitState(generation: row[1], values: values)
            }
        }
        return states
    }
}
