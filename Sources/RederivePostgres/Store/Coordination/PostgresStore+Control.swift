#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive

/// Pauses and cancels kept on the server, read by every worker on every host once per heartbeat.
extension PostgresStore: RunControlling {
    /// Records a pause of `scope`; false when it was paused already.
    public func pause(_ scope: ControlScope, by worker: WorkerIdentity) async throws -> Bool {
        var statement = SQLStatement()
        statement.sql = """
            INSERT INTO rederive_pauses (pipeline, processor, requested_at, requested_by)
            VALUES (\(statement.bind(scope.pipeline)), \(statement.bind(scope.storedProcessor)), now(), \(statement.bind(worker.description)))
            ON CONFLICT (pipeline, processor) DO NOTHING RETURNING 1
            """
        let logger = self.logger
        return try await withConnection("pause the work on") { [statement] connection in
            try await !connection.run(statement, logger: logger).collect { _ in () }.isEmpty
        }
    }

    /// Deletes the pauses `scope` contains; returns them.
    public func resume(_ scope: ControlScope) async throws -> [ControlScope] {
        var statement = SQLStatement()
        statement.sql = "DELETE FROM rederive_pauses WHERE pipeline = \(statement.bind(scope.pipeline))"
        if let processor = scope.processor {
            statement.sql += " AND processor = \(statement.bind(processor))"
        }
        statement.sql += " RETURNING pipeline, processor"
        let logger = self.logger
        return try await withConnection("resume the work on") { [statement] connection in
            try await connection.run(statement, logger: logger).collect { row in
                let (pipeline, processor) = try row.decode((String, String).self)
                return ControlScope(pipeline: pipeline, storedProcessor: processor)
            }
        }
    }

    /// Marks the runs in progress that `scope` covers as cancelled; returns their ids.
    public func cancel(_ scope: ControlScope) async throws -> [Int64] {
        let logger = self.logger
        return try await transaction("cancel runs on") { connection in
            var find = SQLStatement()
            find.sql = """
                SELECT id, processors::text FROM rederive_runs WHERE status = \(find.bind(RunStatus.running.rawValue)) ORDER BY id FOR UPDATE
                """
            let cancelled = try await connection.run(find, logger: logger).collect { row in
                let (id, processors) = try row.decode((Int64, String).self)
                return (id, (try? JSONDecoder().decode([ProcessorVersion].self, from: Data(processors.utf8))) ?? [])
            }.filter { scope.covers(processors: $0.1) }.map(\.0)
            guard !cancelled.isEmpty else { return [] }
            var mark = SQLStatement()
            mark.sql = """
                UPDATE rederive_runs SET cancel_requested_at = coalesce(cancel_requested_at, now()) WHERE id = ANY(\(mark.bind(cancelled)))
                """
            try await connection.run(mark, logger: logger)
            return cancelled
        }
    }

    /// The pauses, and the runs in progress asked to cancel.
    public func controls() async throws -> RunControls {
        let logger = self.logger
        return try await withConnection("read the pauses on") { connection in
            let pauses = try await connection.query(
                "SELECT pipeline, processor, requested_at, requested_by FROM rederive_pauses ORDER BY requested_at, pipeline, processor",
                logger: logger
            ).collect { row in
                let (pipeline, processor, at, by) = try row.decode((String, String, Date, String).self)
                return RunControls.Pause(scope: ControlScope(pipeline: pipeline, storedProcessor: processor), requestedAt: at, requestedBy: by)
            }
            var cancelled = SQLStatement()
            cancelled.sql = """
                SELECT id FROM rederive_runs WHERE status = \(cancelled.bind(RunStatus.running.rawValue)) AND cancel_requested_at IS NOT NULL
                """
            let runs = try await connection.run(cancelled, logger: logger).collect { try $0.decode(Int64.self) }
            return RunControls(pauses: pauses, cancelledRuns: Set(runs))
        }
    }

    /// Records what holds the lease's workers, while the lease is there.
    public func reportHold(_ hold: ClaimHold?, lease: WorkerLease) async throws {
        var statement = SQLStatement()
        let text = hold.map { statement.bind($0.description, as: "text") } ?? statement.bindNull(as: "text")
        statement.sql = """
            UPDATE rederive_leases SET hold = \(text),
                hold_since = CASE WHEN \(text) IS NULL THEN NULL WHEN hold IS NOT DISTINCT FROM \(text) THEN hold_since ELSE clock_timestamp() END
            WHERE token = \(statement.bind(lease.token))
            """
        let logger = self.logger
        try await withConnection("report a hold to") { [statement] connection in
            _ = try await connection.run(statement, logger: logger)
        }
    }

    /// The unexpired leases of processes that still run, with their runs and what holds them.
    public func workerHolds() async throws -> [WorkerHold] {
        let logger = self.logger
        let holds = try await withConnection("read") { connection in
            try await connection.query("""
                SELECT host, process_id, process_start, run_id, hold, hold_since FROM rederive_leases
                WHERE expires_at >= clock_timestamp() ORDER BY acquired_at
                """, logger: logger).collect { row in
                let (host, pid, start, run, hold, since) = try row.decode((String, Int32, String?, Int64?, String?, Date?).self)
                let held = hold.flatMap(ClaimHold.init(stored:))
                return WorkerHold(
                    worker: WorkerIdentity(host: host, processID: pid, start: start.flatMap(ProcessStart.init)), runID: run,
                    hold: held, since: held == nil ? nil : since
                )
            }
        }
        return holds.filter { !$0.worker.hasEndedOnThisHost }
    }
}
#endif
