import Foundation
import GRDB
import Rederive

/// Storing a batch of results in one transaction.
extension SQLiteStore {
    public func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64) async throws -> RunCounts {
        guard !results.isEmpty else { return RunCounts() }
        let writer = BatchWriter(tables: PipelineTables(plan.pipeline), runID: runID, now: Timestamp.text(Date()))
        return try await write { db in
            var counts = RunCounts()
            for result in results {
                try writer.store(result, db, into: &counts)
            }
            return counts
        }
    }
}

/// Writes one batch's results; all statements are prepared once per connection and reused.
struct BatchWriter: Sendable {
    let tables: PipelineTables
    let runID: Int64
    let now: String

    func store(_ result: RecordResult, _ db: Database, into counts: inout RunCounts) throws {
        // The payload the values were derived from must still be the record's payload.
        let current = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT generation FROM rederive_records WHERE source = ? AND record_id = ?"),
            arguments: [tables.pipeline.table, result.recordID]
        )
        guard current == result.generation else {
            counts.skipped += 1
            return
        }
        let processors = tables.pipeline.processors
        var derivedProcessors: [ProcessorDescriptor] = []
        var columns: [OutputColumn] = []
        var values: [DatabaseValue] = []
        var failed = false
        for (index, outcome) in result.outcomes {
            let processor = processors[index]
            switch outcome {
            case .derived(let derived):
                derivedProcessors.append(processor)
                columns += processor.columns
                values += derived.map(\.databaseValue)
            case .failed(let kind, let message):
                failed = true
                try recordFailure(processor, kind: kind, message: message, result, db)
            }
        }
        var changed = false
        if !columns.isEmpty {
            let stored: Row?
            (changed, stored) = try writeValues(columns, values, recordID: result.recordID, db)
            if changed {
                try keepReplaced(derivedProcessors, values, stored: stored, result, db)
            }
            for processor in derivedProcessors {
                try stamp(processor, result, db)
            }
        }
        if failed {
            counts.failed += 1
        } else if changed {
            counts.derived += 1
        } else {
            counts.unchanged += 1
        }
    }

    /// Writes derived values unless they equal what is stored; returns whether anything changed, and
    /// what was stored. Skipping equal values spares the write, and in the inline layout the rewrite of the whole record.
    private func writeValues(
        _ columns: [OutputColumn], _ values: [DatabaseValue], recordID: Int64, _ db: Database
    ) throws -> (changed: Bool, stored: Row?) {
        let names = columns.map { SQL.identifier($0.name) }
        let select = try db.cachedStatement(
            sql: "SELECT \(names.joined(separator: ", ")) FROM \(tables.destination) WHERE \(tables.destinationID) = ?"
        )
        let stored = try Row.fetchOne(select, arguments: [recordID])
        if let stored, Array(stored.databaseValues) == values {
            return (false, stored)
        }
        switch tables.pipeline.layout {
        case .companion:
            let assignments = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: names.count + 1).joined(separator: ", ")
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO \(tables.destination) (id, \(names.joined(separator: ", "))) VALUES (\(placeholders))
                ON CONFLICT (id) DO UPDATE SET \(assignments)
                """)
            try upsert.execute(arguments: StatementArguments([recordID.databaseValue] + values))
        case .inline:
            let assignments = names.map { "\($0) = ?" }.joined(separator: ", ")
            let update = try db.cachedStatement(
                sql: "UPDATE \(tables.table) SET \(assignments) WHERE \(tables.id) = ?"
            )
            try update.execute(arguments: StatementArguments(values + [recordID.databaseValue]))
        }
        return (true, stored)
    }

    private func stamp(_ processor: ProcessorDescriptor, _ result: RecordResult, _ db: Database) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO rederive_stamps
                (processor, record_id, source, version, generation, payload_digest, current, run_id, derived_at)
            VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
            ON CONFLICT (processor, record_id) DO UPDATE SET
                version = excluded.version, generation = excluded.generation,
                payload_digest = excluded.payload_digest, current = 1,
                run_id = excluded.run_id, derived_at = excluded.derived_at
            """)
        try upsert.execute(arguments: [
            processor.name, result.recordID, tables.pipeline.table, processor.version,
            result.generation, result.payloadDigest, runID, now,
        ])
        let clear = try db.cachedStatement(sql: "DELETE FROM rederive_failures WHERE processor = ? AND record_id = ?")
        try clear.execute(arguments: [processor.name, result.recordID])
    }

    private func recordFailure(
        _ processor: ProcessorDescriptor, kind: FailureKind, message: String, _ result: RecordResult, _ db: Database
    ) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO rederive_failures
                (processor, record_id, source, version, generation, current, kind, message, run_id, failed_at)
            VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
            ON CONFLICT (processor, record_id) DO UPDATE SET
                version = excluded.version, generation = excluded.generation, current = 1,
                kind = excluded.kind, message = excluded.message,
                run_id = excluded.run_id, failed_at = excluded.failed_at
            """)
        try upsert.execute(arguments: [
            processor.name, result.recordID, tables.pipeline.table, processor.version,
            result.generation, kind.rawValue, message, runID, now,
        ])
    }
}
