#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive

/// Recorded runs: one per `rederive run` process, its counts added to by every commit.
extension PostgresStore {
    public func startRun(processors: [ProcessorVersion]) async throws -> Int64 {
        var statement = SQLStatement()
        let processorsJSON = String(decoding: try JSONEncoder().encode(processors), as: UTF8.self)
        statement.sql = """
            INSERT INTO rederive_runs (started_at, status, processors)
            VALUES (now(), \(statement.bind(RunStatus.running.rawValue)), \(statement.bind(processorsJSON, as: "jsonb"))) RETURNING id
            """
        let logger = self.logger
        let keep = Int64(replacedValuesRunLimit)
        return try await transaction("record a run in") { connection in
            let runID = try await connection.run(statement, logger: logger).collect { try $0.decode(Int64.self) }.first ?? 0
            // Only the newest runs can be rolled back.
            var prune = SQLStatement()
            prune.sql = "DELETE FROM rederive_replaced WHERE run_id <= \(prune.bind(runID - keep))"
            try await connection.run(prune, logger: logger)
            return runID
        }
    }

    public func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts) async throws {
        // The counts are already there: every commit added its own.
        var statement = SQLStatement()
        statement.sql = """
            UPDATE rederive_runs SET ended_at = now(), status = \(statement.bind(status.rawValue)) WHERE id = \(statement.bind(runID))
            """
        let logger = self.logger
        _ = try await withConnection("record a run in") { connection in
            try await connection.run(statement, logger: logger)
        }
    }

    public func runs(limit: Int?) async throws -> [RunHistoryEntry] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT id, started_at, ended_at, status, processors::text, derived, unchanged, failed, skipped
            FROM rederive_runs ORDER BY id DESC LIMIT \(statement.bind(Int64(limit ?? Int(Int32.max))))
            """
        let logger = self.logger
        return try await withConnection("read") { connection in
            try await connection.run(statement, logger: logger).collect { row in
                let (id, started, ended, status, processors, derived, unchanged, failed, skipped) = try row.decode(
                    (Int64, Date, Date?, String, String, Int64, Int64, Int64, Int64).self
                )
                return RunHistoryEntry(
                    id: id, startedAt: started, endedAt: ended, status: RunStatus(rawValue: status) ?? .failed,
                    processors: (try? JSONDecoder().decode([ProcessorVersion].self, from: Data(processors.utf8))) ?? [],
                    counts: RunCounts(derived: Int(derived), unchanged: Int(unchanged), failed: Int(failed), skipped: Int(skipped))
                )
            }
        }
    }
}
#endif
