import Foundation
import GRDB
import Rederive

/// Storing a batch of results in one transaction.
extension SQLiteStore {
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
            for result in results {
                try writer.store(result, db, statements, into: &counts)
            }
            return counts
        }
    }
}

/// Writes one batch's results.
struct BatchWriter: Sendable {
    let tables: PipelineTables
    let runID: Int64
    let now: String

    func store(_ result: RecordResult, _ db: Database, _ statements: CommitStatements, into counts: inout RunCounts) throws {
        // The payload the values were derived from must still be the record's payload.
        let current = try Int64.fetchOne(statements.generation, arguments: [tables.pipeline.table, result.recordID])
        guard current == result.generation else {
            counts.skipped += 1
            return
        }
        let processors = tables.pipeline.processors
        let (derivedIndices, derivedValues, failures) = result.committable
        for failure in failures {
            try recordFailure(processors[failure.processor], kind: failure.kind, message: failure.message, result, db)
        }
        let values = derivedValues.map(\.databaseValue)
        var changed = false
        if !derivedIndices.isEmpty {
            let derivedProcessors = derivedIndices.map { processors[$0] }
            let stored: Row?
            (changed, stored) = try writeValues(derivedIndices, values, recordID: result.recordID, statements)
            if changed {
                try keepReplaced(derivedProcessors, values, stored: stored, result, db)
            }
            try stamp(derivedIndices, result, statements)
        }
        counts.count(failed: !failures.isEmpty, changed: changed)
    }

    /// Writes derived values unless they equal what is stored; returns whether anything changed, and
    /// what was stored. Skipping equal values spares the write, and in the inline layout the rewrite of the whole record.
    private func writeValues(
        _ processors: [Int], _ values: [DatabaseValue], recordID: Int64, _ statements: CommitStatements
    ) throws -> (changed: Bool, stored: Row?) {
        let stored = try Row.fetchOne(try statements.selectValues(processors), arguments: [recordID])
        if let stored, Array(stored.databaseValues).isUnchanged(byStoring: values, in: processors.flatMap { tables.pipeline.processors[$0].columns }) {
            return (false, stored)
        }
        let write = try statements.writeValues(processors)
        switch tables.pipeline.layout {
        case .companion:
            try write.execute(arguments: StatementArguments([recordID.databaseValue] + values))
        case .inline:
            try write.execute(arguments: StatementArguments(values + [recordID.databaseValue]))
        }
        return (true, stored)
    }

    /// Stamps the processors that derived the record, and clears their failures, in two statements.
    private func stamp(_ indices: [Int], _ result: RecordResult, _ statements: CommitStatements) throws {
        let processors = indices.map { tables.pipeline.processors[$0] }
        var stampArguments: [(any DatabaseValueConvertible)?] = []
        var clearArguments: [(any DatabaseValueConvertible)?] = [tables.pipeline.name, result.recordID]
        for (index, processor) in zip(indices, processors) {
            stampArguments += [
                tables.pipeline.name, processor.name, result.recordID, tables.pipeline.table, processor.version,
                result.generation, result.payloadDigest, result.inputDigests[index], tables.pipeline.inputVersions(of: index),
                runID, now,
            ]
            clearArguments.append(processor.name)
        }
        try statements.stamps(count: processors.count).execute(arguments: StatementArguments(stampArguments))
        try statements.clearFailures(count: processors.count).execute(arguments: StatementArguments(clearArguments))
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
