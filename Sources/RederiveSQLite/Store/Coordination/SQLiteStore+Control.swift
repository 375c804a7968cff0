import Foundation
import GRDB
import Rederive

/// Pauses and cancels kept in the database, so that `rederive pause` in another terminal holds the
/// run that derives it; the run's process reads them once per heartbeat of its lease.
extension SQLiteStore: RunControlling {
    /// Records a pause of `scope`; false when it was paused already.
    public func pause(_ scope: ControlScope, by worker: WorkerIdentity) async throws -> Bool {
        let now = Timestamp.text(Date())
        return try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO rederive_pauses (pipeline, processor, requested_at, requested_by) VALUES (?, ?, ?, ?)
                    ON CONFLICT (pipeline, processor) DO NOTHING
                    """,
                arguments: [scope.pipeline, scope.storedProcessor, now, worker.description]
            )
            return db.changesCount > 0
        }
    }

    /// Deletes the pauses `scope` contains; returns them.
    public func resume(_ scope: ControlScope) async throws -> [ControlScope] {
        try await write { db in
            let lifted = try Row.fetchAll(db, sql: "SELECT pipeline, processor FROM rederive_pauses WHERE pipeline = ?", arguments: [scope.pipeline])
                .map { ControlScope(pipeline: $0["pipeline"], storedProcessor: $0["processor"]) }
                .filter(scope.contains)
            for pause in lifted {
                try db.execute(
                    sql: "DELETE FROM rederive_pauses WHERE pipeline = ? AND processor = ?",
                    arguments: [pause.pipeline, pause.storedProcessor]
                )
            }
            return lifted
        }
    }

    /// Marks the runs in progress that `scope` covers as cancelled; returns their ids.
    public func cancel(_ scope: ControlScope) async throws -> [Int64] {
        let now = Timestamp.text(Date())
        return try await write { db in
            let running = try Row.fetchAll(
                db, sql: "SELECT id, processors FROM rederive_runs WHERE status = ? ORDER BY id",
                arguments: [RunStatus.running.rawValue]
            )
            let cancelled = running.compactMap { row -> Int64? in
                let processors = Self.processors(fromJSON: row["processors"])
                return scope.covers(processors: processors) ? row["id"] : nil
            }
            for runID in cancelled {
                try db.execute(
                    sql: "UPDATE rederive_runs SET cancel_requested_at = coalesce(cancel_requested_at, ?) WHERE id = ?",
                    arguments: [now, runID]
                )
            }
            return cancelled
        }
    }

    /// The pauses, and the runs in progress asked to cancel.
    public func controls() async throws -> RunControls {
        try await read { db in
            let pauses = try Row.fetchAll(db, sql: "SELECT * FROM rederive_pauses ORDER BY requested_at, pipeline, processor").map { row in
                RunControls.Pause(
                    scope: ControlScope(pipeline: row["pipeline"], storedProcessor: row["processor"]),
                    requestedAt: Timestamp.date(row["requested_at"]) ?? Date(timeIntervalSince1970: 0),
                    requestedBy: row["requested_by"]
                )
            }
            let cancelled = try Int64.fetchAll(
                db, sql: "SELECT id FROM rederive_runs WHERE status = ? AND cancel_requested_at IS NOT NULL",
                arguments: [RunStatus.running.rawValue]
            )
            return RunControls(pauses: pauses, cancelledRuns: Set(cancelled))
        }
    }

    /// Records what holds the lease's process, when the lease is still its.
    public func reportHold(_ hold: ClaimHold?, lease: WorkerLease) async throws {
        let now = Date().timeIntervalSince1970
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE rederive_leases SET hold = ?,
                        hold_since = CASE WHEN ? IS NULL THEN NULL WHEN hold IS ? THEN hold_since ELSE ? END
                    WHERE name = ? AND token = ?
                    """,
                arguments: [hold?.description, hold?.description, hold?.description, now, WorkerLeaseSchema.runnerLease, lease.token]
            )
        }
    }

    /// The process deriving the database, when its lease is live, with what holds it.
    public func workerHolds() async throws -> [WorkerHold] {
        try await read { db in
            let now = Date().timeIntervalSince1970
            return try Row.fetchAll(
                db,
                sql: "SELECT host, process_id, run_id, hold, hold_since FROM rederive_leases WHERE expires_at > ?",
                arguments: [now]
            ).compactMap { row in
                let worker = WorkerIdentity(host: row["host"], processID: row["process_id"])
                guard !worker.hasEndedOnThisHost else { return nil }
                let hold = (row["hold"] as String?).flatMap(ClaimHold.init(stored:))
                return WorkerHold(
                    worker: worker, runID: row["run_id"], hold: hold,
                    since: hold == nil ? nil : (row["hold_since"] as Double?).map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    /// A run's processors, as `rederive_runs` keeps them in JSON.
    static func processors(fromJSON text: String) -> [ProcessorVersion] {
        (try? JSONDecoder().decode([ProcessorVersion].self, from: Data(text.utf8))) ?? []
    }
}
