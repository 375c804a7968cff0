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
                try Self.rollback(runID, PipelineTables(pipeline), db, into: &report)
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

    private static func rollback(_ runID: Int64, _ tables: PipelineTables, _ db: Database, into report: inout RollbackReport) throws {
        let pipeline = tables.pipeline
        // Per record and processor, the newest later run that changed it again: the one to roll back first.
        let kept = try Row.fetchAll(db, sql: """
            WITH later AS (
                SELECT processor, record_id, max(run_id) AS run_id FROM rederive_replaced_stamps
                WHERE run_id > ?1 AND pipeline = ?2 GROUP BY processor, record_id
            )
            SELECT k.*, r.generation AS current_generation, s.run_id AS current_run, \(tables.keyExpression) AS record_key,
                c.run_id AS later_change
            FROM rederive_replaced_stamps k
            LEFT JOIN later c ON c.processor = k.processor AND c.record_id = k.record_id
            LEFT JOIN rederive_records r ON r.source = k.source AND r.record_id = k.record_id
            LEFT JOIN rederive_stamps s ON s.pipeline = k.pipeline AND s.processor = k.processor AND s.record_id = k.record_id
            LEFT JOIN \(tables.table) t ON t.\(tables.id) = k.record_id
            WHERE k.run_id = ?1 AND k.pipeline = ?2
            ORDER BY k.record_id, k.processor
            """, arguments: [runID, pipeline.name])
        for row in kept {
            let recordID: Int64 = row["record_id"]
            let name: String = row["processor"]
            let currentGeneration: Int64? = row["current_generation"]
            let currentRun: Int64? = row["current_run"]
            func entry(_ reason: String?) -> RollbackReport.Entry {
                .init(pipeline: pipeline.name, recordID: recordID, key: RecordKey.text(row, named: "record_key"), processor: name, reason: reason)
            }
            let reason: String? = if currentGeneration == nil {
                "the record was deleted"
            } else if currentGeneration != row["derived_generation"] {
                "its payload changed since run \(runID)"
            } else if let later = RollbackRules.laterChange(after: runID, newestLaterChange: row["later_change"]) {
                later
            } else if currentRun == nil {
                "its stamp was removed since run \(runID)"
            } else if pipeline.processor(named: name) == nil {
                "the pipeline no longer has processor \"\(name)\""
            } else {
                nil
            }
            if let reason {
                report.skipped.append(entry(reason))
                continue
            }
            try restoreValues(runID, name, recordID, tables, db)
            try restoreStamp(row, db)
            for table in ["rederive_replaced_values", "rederive_replaced_stamps"] {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE run_id = ? AND pipeline = ? AND processor = ? AND record_id = ?",
                    arguments: [runID, pipeline.name, name, recordID]
                )
            }
            report.restored.append(entry(nil))
        }
        try invalidateDependents(of: report.restored.filter { $0.pipeline == pipeline.name }, tables, db)
    }

    /// Makes stale the dependents of restored processors, for the same records: their values were
    /// derived from the values now replaced. A dependent restored by the same rollback already matches.
    private static func invalidateDependents(of restored: [RollbackReport.Entry], _ tables: PipelineTables, _ db: Database) throws {
        let pipeline = tables.pipeline
        let restoredPairs = Set(restored.map { "\($0.recordID) \($0.processor)" })
        let invalidate = try db.cachedStatement(sql: """
            UPDATE rederive_stamps SET current = 0 WHERE pipeline = ? AND processor = ? AND record_id = ? AND current = 1
            """)
        for entry in restored {
            for name in pipeline.dependents(of: entry.processor) {
                guard !restoredPairs.contains("\(entry.recordID) \(name)") else { continue }
                try invalidate.execute(arguments: [pipeline.name, name, entry.recordID])
            }
        }
    }

    /// Writes the kept values of the processor's columns that the pipeline still declares; a column
    /// without a kept value held its declared default.
    private static func restoreValues(_ runID: Int64, _ processor: String, _ recordID: Int64, _ tables: PipelineTables, _ db: Database) throws {
        guard let columns = tables.pipeline.processor(named: processor)?.columns else { return }
        let kept = try Row.fetchAll(
            db,
            sql: """
                SELECT column_name, value FROM rederive_replaced_values
                WHERE run_id = ? AND pipeline = ? AND processor = ? AND record_id = ?
                """,
            arguments: [runID, tables.pipeline.name, processor, recordID]
        )
        let keptByName = Dictionary(kept.map { ($0["column_name"] as String, $0["value"] as DatabaseValue) }, uniquingKeysWith: { a, _ in a })
        let values = columns.map { (name: $0.name, value: keptByName[$0.name] ?? $0.defaultValue.databaseValue) }
        let names = values.map { SQL.identifier($0.name) }
        let arguments = values.map(\.value)
        switch tables.pipeline.layout {
        case .companion:
            try db.execute(
                sql: """
                    INSERT INTO \(tables.destination) (id, \(names.joined(separator: ", ")))
                    VALUES (?, \(names.map { _ in "?" }.joined(separator: ", ")))
                    ON CONFLICT (id) DO UPDATE SET \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                    """,
                arguments: StatementArguments([recordID.databaseValue] + arguments)
            )
        case .inline:
            try db.execute(
                sql: "UPDATE \(tables.table) SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(tables.id) = ?",
                arguments: StatementArguments(arguments + [recordID.databaseValue])
            )
        }
    }

    /// Puts back the stamp the run replaced, or removes the run's stamp when there was none before.
    private static func restoreStamp(_ kept: Row, _ db: Database) throws {
        let pipeline: String = kept["pipeline"]
        let processor: String = kept["processor"]
        let recordID: Int64 = kept["record_id"]
        guard kept["had_stamp"] as Bool else {
            try db.execute(
                sql: "DELETE FROM rederive_stamps WHERE pipeline = ? AND processor = ? AND record_id = ?",
                arguments: [pipeline, processor, recordID]
            )
            return
        }
        // The old stamp is current only if it was, and for the payload the record still has.
        let current = (kept["current"] as Int64? ?? 0) != 0
            && (kept["generation"] as Int64?) == (kept["derived_generation"] as Int64)
        try db.execute(
            sql: """
                UPDATE rederive_stamps SET version = ?, generation = ?, payload_digest = ?, inputs_digest = ?, input_versions = ?,
                    current = ?, run_id = ?, derived_at = ?
                WHERE pipeline = ? AND processor = ? AND record_id = ?
                """,
            arguments: [
                kept["version"], kept["generation"], kept["payload_digest"], kept["inputs_digest"], kept["input_versions"], current,
                kept["stamp_run_id"], kept["derived_at"], pipeline, processor, recordID,
            ]
        )
    }
}
