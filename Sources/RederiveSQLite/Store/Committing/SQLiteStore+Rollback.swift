import Foundation
import GRDB
import Rederive
import RederiveSQL

extension SQLiteStore: StoreAdministration {
    /// Puts back the values and stamps that run `runID` replaced, in one transaction
    /// (`StoreAdministration/rollback(run:pipelines:)`).
    ///
    /// ```swift
    /// let report = try await store.rollback(run: 12, pipelines: [RoomScan.pipeline])
    /// print(report.restored.count, "restored,", report.skipped.count, "skipped")
    /// ```
    public func rollback(run runID: Int64, pipelines: [Pipeline]) async throws -> RollbackReport {
        let path = self.path
        let keep = replacedValuesRunLimit
        return try await write { db in
            guard let candidate = try Self.rollbackCandidate(runID, db) else {
                throw RederiveError(.unknownName, "no run \(runID) in \(path)")
            }
            try RollbackRules.requireRollbackable(candidate, in: path, keep: keep)
            var report = RollbackReport()
            for pipeline in pipelines {
                let tables = PipelineTables(pipeline)
                let plan = RollbackPlan(run: runID, pipeline: pipeline, kept: try Self.keptEntries(runID, tables, db))
                try Self.apply(plan, runID, tables, db)
                report.add(plan.report)
            }
            return report
        }
    }

    /// What `RollbackRules` needs to know of run `runID`; nil when there is no such run.
    private static func rollbackCandidate(_ runID: Int64, _ db: Database) throws -> RollbackRules.Candidate? {
        guard let run = try Row.fetchOne(db, sql: "SELECT status, derived FROM rederive_runs WHERE id = ?", arguments: [runID]) else {
            return nil
        }
        let kept = try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_replaced_stamps WHERE run_id = ?", arguments: [runID]) ?? 0
        let later = try Int.fetchOne(
            db, sql: "SELECT count(DISTINCT run_id) FROM rederive_replaced_stamps WHERE run_id > ?", arguments: [runID]
        ) ?? 0
        let status: String = run["status"]
        return RollbackRules.Candidate(
            runID: runID, status: RunStatus(rawValue: status) ?? .failed, changedRecords: run["derived"] ?? 0,
            keptEntries: kept, laterRunsKeepingValues: later, inProgress: try runsInProgress(db)
        )
    }

    /// The run deriving the database now, if any: one whose process holds the runner lease, alive.
    static func runsInProgress(_ db: Database) throws -> [RollbackRules.RunInProgress] {
        guard let row = try Row.fetchOne(
            db, sql: """
                SELECT l.run_id, l.holder, l.host, l.process_id, l.expires_at FROM rederive_leases l
                JOIN rederive_runs r ON r.id = l.run_id AND r.status = ?
                WHERE l.name = ?
                """,
            arguments: [RunStatus.running.rawValue, WorkerLeaseSchema.runnerLease]
        ), (row["expires_at"] as Double) > Date().timeIntervalSince1970,
            !WorkerIdentity(host: row["host"], processID: row["process_id"]).hasEndedOnThisHost
        else { return [] }
        return [RollbackRules.RunInProgress(runID: row["run_id"], holder: row["holder"])]
    }

    /// What the run kept in the pipeline, each entry with what its record holds now: all a
    /// `RollbackPlan` needs.
    private static func keptEntries(_ runID: Int64, _ tables: PipelineTables, _ db: Database) throws -> [StoredRollbackEntry] {
        let arguments: StatementArguments = [runID, tables.pipeline.name]
        var values: [String: [String: DerivedValue]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT record_id, processor, column_name, value FROM rederive_replaced_values WHERE run_id = ? AND pipeline = ?
            """, arguments: arguments) {
            values["\(row["record_id"] as Int64) \(row["processor"] as String)", default: [:]][row["column_name"]] = DerivedValue(row["value"] as DatabaseValue)
        }
        // Per record and processor, the newest later run that changed it again.
        return try Row.fetchAll(db, sql: """
            WITH later AS (
                SELECT processor, record_id, max(run_id) AS run_id FROM rederive_replaced_stamps
                WHERE run_id > ?1 AND pipeline = ?2 GROUP BY processor, record_id
            )
            SELECT k.record_id, k.processor, k.derived_generation, k.had_stamp, k.current, k.generation,
                r.generation AS current_generation, s.processor IS NOT NULL AS has_stamp, \(tables.keyExpression) AS record_key,
                c.run_id AS later_change
            FROM rederive_replaced_stamps k
            LEFT JOIN later c ON c.processor = k.processor AND c.record_id = k.record_id
            LEFT JOIN rederive_records r ON r.source = k.source AND r.record_id = k.record_id
            LEFT JOIN rederive_stamps s ON s.pipeline = k.pipeline AND s.processor = k.processor AND s.record_id = k.record_id
            LEFT JOIN \(tables.table) t ON t.\(tables.id) = k.record_id
            WHERE k.run_id = ?1 AND k.pipeline = ?2
            """, arguments: arguments).map { row in
            let recordID: Int64 = row["record_id"]
            let processor: String = row["processor"]
            let stamp = (row["had_stamp"] as Bool)
                ? KeptStamp(current: (row["current"] as Int64? ?? 0) != 0, generation: row["generation"] ?? 0) : nil
            return StoredRollbackEntry(
                recordID: recordID, key: RecordKey.text(row, named: "record_key"), processor: processor,
                derivedGeneration: row["derived_generation"], currentGeneration: row["current_generation"], hasStamp: row["has_stamp"],
                newestLaterChange: row["later_change"], values: values["\(recordID) \(processor)"] ?? [:], stamp: stamp
            )
        }
    }

    /// Writes what the plan puts back, forgets what the run kept of it, and makes the dependents stale.
    private static func apply(_ plan: RollbackPlan, _ runID: Int64, _ tables: PipelineTables, _ db: Database) throws {
        let pipeline = tables.pipeline
        let statements = try CommitStatements(db, tables)
        for entry in plan.restored {
            let values = entry.values.map(\.databaseValue)
            let id = entry.recordID.databaseValue
            let arguments = if case .companion = pipeline.layout { [id] + values } else { values + [id] }
            try statements.writeValues([entry.processor]).execute(arguments: StatementArguments(arguments))
            let key: StatementArguments = [runID, pipeline.name, pipeline.processors[entry.processor].name, entry.recordID]
            switch entry.stamp {
            case .removed:
                try db.execute(sql: "DELETE FROM rederive_stamps WHERE pipeline = ?2 AND processor = ?3 AND record_id = ?4", arguments: key)
            case .kept(let current):
                try db.execute(sql: """
                    UPDATE rederive_stamps SET (version, generation, payload_digest, inputs_digest, input_versions, run_id, derived_at) = (
                        SELECT version, generation, payload_digest, inputs_digest, input_versions, stamp_run_id, derived_at
                        FROM rederive_replaced_stamps WHERE run_id = ?1 AND pipeline = ?2 AND processor = ?3 AND record_id = ?4
                    ), current = ?5
                    WHERE pipeline = ?2 AND processor = ?3 AND record_id = ?4
                    """, arguments: key + [current])
            }
            for table in ["rederive_replaced_values", "rederive_replaced_stamps"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE run_id = ? AND pipeline = ? AND processor = ? AND record_id = ?", arguments: key)
            }
        }
        let invalidate = try db.cachedStatement(sql: """
            UPDATE rederive_stamps SET current = 0 WHERE pipeline = ? AND processor = ? AND record_id = ? AND current = 1
            """)
        for stale in plan.stale {
            try invalidate.execute(arguments: [pipeline.name, pipeline.processors[stale.processor].name, stale.recordID])
        }
    }
}
