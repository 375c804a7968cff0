#if PostgreSQL
import Foundation
import PostgresNIO
import Synchronization
import Rederive

/// Every worker process takes a lease of its own: many run at once, each claiming its own records.
/// A lease that is not renewed expires; the next claim by anyone reaps it and frees its records.
extension PostgresStore {
    public func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        let token = UUID().uuidString
        var statement = SQLStatement()
        statement.sql = """
            INSERT INTO rederive_leases (token, holder, host, process_id, acquired_at, renewed_at, expires_at)
            VALUES (\(statement.bind(token)), \(statement.bind(worker.description)), \(statement.bind(worker.host)),
                \(statement.bind(worker.processID)), clock_timestamp(), clock_timestamp(),
                clock_timestamp() + make_interval(secs => \(statement.bind(duration.secondsValue))))
            """
        let logger = self.logger
        _ = try await withConnection("take a lease on") { connection in
            try await connection.run(statement, logger: logger)
        }
        return .acquired(WorkerLease(worker: worker, token: token, duration: duration))
    }

    /// Renews on a watched connection (``watchedTransaction(_:within:closingOnCancel:_:)``): a renewal cut
    /// off from the server ends by the lease's expiry, and at once when the run ends, rather than
    /// hold the run open for ever.
    public func renewLease(_ lease: WorkerLease) async throws {
        let logger = self.logger
        let renewed: Bool
        do {
            renewed = try await watchedTransaction("renew the lease on", within: lease.duration, closingOnCancel: true) { connection in
                try await Self.renew(lease, connection, logger)
            }
        } catch let fault as ConnectionFault {
            throw fault.error
        }
        if !renewed { throw leaseLost(lease) }
    }

    public func releaseLease(_ lease: WorkerLease) async throws {
        claimPositions.withLock { positions in
            positions = positions.filter { $0.key.token != lease.token }
        }
        let logger = self.logger
        try await transaction("release the lease on") { connection in
            var release = SQLStatement()
            release.sql = "UPDATE rederive_records SET claimed_by = NULL WHERE claimed_by = \(release.bind(lease.token))"
            try await connection.run(release, logger: logger)
            var delete = SQLStatement()
            delete.sql = "DELETE FROM rederive_leases WHERE token = \(delete.bind(lease.token))"
            try await connection.run(delete, logger: logger)
            try await Self.reapExpiredLeases(connection, logger)
        }
    }

    /// Extends the lease by its duration unless it was reaped; false when it was. The expiry counts
    /// from the moment of renewal (`clock_timestamp()`), not from the start of the transaction, which
    /// may have waited.
    static func renew(_ lease: WorkerLease, _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        var statement = SQLStatement()
        statement.sql = """
            UPDATE rederive_leases SET renewed_at = clock_timestamp(),
                expires_at = clock_timestamp() + make_interval(secs => \(statement.bind(lease.duration.secondsValue)))
            WHERE token = \(statement.bind(lease.token)) RETURNING 1
            """
        return try await !connection.run(statement, logger: logger).collect { _ in () }.isEmpty
    }

    /// Whether the lease is still there, read without locking its row: an expired lease that no one
    /// reaped yet is still this process's.
    static func isHeld(_ lease: WorkerLease, _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        var statement = SQLStatement()
        statement.sql = "SELECT count(*) FROM rederive_leases WHERE token = \(statement.bind(lease.token))"
        return try await connection.count(statement, logger: logger) > 0
    }

    /// Deletes the expired leases and frees the records claimed by leases that are gone, so that
    /// others derive them. Never waits: a lease or record locked by a transaction still open (a worker
    /// cut off mid-commit, whose session the server ends after `idle_in_transaction_session_timeout`)
    /// is left for a later claim.
    static func reapExpiredLeases(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            DELETE FROM rederive_leases WHERE token IN (
                SELECT token FROM rederive_leases WHERE expires_at < clock_timestamp() FOR UPDATE SKIP LOCKED)
            """, logger: logger)
        try await connection.query("""
            UPDATE rederive_records r SET claimed_by = NULL FROM (
                SELECT x.source, x.record_id FROM rederive_records x
                WHERE x.claimed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rederive_leases l WHERE l.token = x.claimed_by)
                FOR UPDATE OF x SKIP LOCKED
            ) orphaned
            WHERE r.source = orphaned.source AND r.record_id = orphaned.record_id
            """, logger: logger)
    }

    func leaseLost(_ lease: WorkerLease) -> RederiveError {
        RederiveError(
            .leaseLost,
            "the lease of \(lease.worker.description) on \(location) expired and its records were taken over; nothing more is committed"
        )
    }

    public func liveWorkers() async throws -> [WorkerStatus] {
        let logger = self.logger
        return try await withConnection("read") { connection in
            try await connection.query("""
                SELECT l.host, l.process_id,
                    (SELECT coalesce(sum(s.derived + s.unchanged + s.failed), 0)::bigint FROM rederive_run_shares s WHERE s.token = l.token),
                    l.renewed_at, l.expires_at,
                    (SELECT count(*) FROM rederive_records r WHERE r.claimed_by = l.token)
                FROM rederive_leases l WHERE l.expires_at >= clock_timestamp() ORDER BY l.acquired_at
                """, logger: logger).collect { row in
                let (host, pid, done, renewed, expires, claimed) = try row.decode((String, Int32, Int64, Date, Date, Int64).self)
                return WorkerStatus(
                    worker: WorkerIdentity(host: host, processID: pid), claimed: Int(claimed), done: Int(done),
                    lastHeartbeat: renewed, expiresAt: expires
                )
            }
        }
    }
}
#endif
