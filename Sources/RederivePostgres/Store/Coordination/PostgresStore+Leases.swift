#if PostgreSQL
import Foundation
import PostgresNIO
import Synchronization
import Rederive

/// Every worker process takes a lease of its own: many run at once, each claiming its own records.
/// A lease that is not renewed expires, and the lease of a process of this host that no longer runs
/// is as good as expired; the next claim by anyone reaps it. Its records stay marked with its token,
/// so that the next claims of the live workers find them through the index of claims and take them
/// first, wherever their cursors stand; the last worker to leave frees what nobody took.
extension PostgresStore {
    /// Takes a lease of this process's own, since many processes derive at once here, and reaps the
    /// expired leases and those of this host's processes that no longer run.
    public func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        let token = UUID().uuidString
        var statement = SQLStatement()
        statement.sql = """
            INSERT INTO rederive_leases (token, holder, host, process_id, process_start, acquired_at, renewed_at, expires_at)
            VALUES (\(statement.bind(token)), \(statement.bind(worker.description)), \(statement.bind(worker.host)),
                \(statement.bind(worker.processID)), \(worker.start.map { statement.bind($0.description) } ?? statement.bindNull(as: "text")), clock_timestamp(), clock_timestamp(),
                clock_timestamp() + make_interval(secs => \(statement.bind(duration.secondsValue))))
            """
        let logger = self.logger
        do {
            // Watched: a run that lost its lease in an outage takes a new one here, and must not wait
            // for ever on a link that is still cut; the run waits the outage out and asks again.
            try await watchedTransaction("take a lease on", within: max(duration, .seconds(5)), cancelled: .waitAtMost(Self.cancelledStatementLimit)) { [statement] connection in
                try await connection.run(statement, logger: logger)
                // A worker restarted after a kill takes over at once what the killed one held.
                try await Self.reapLeases(connection, logger)
            }
        } catch let fault as ConnectionFault {
            throw fault.outage
        }
        return .acquired(WorkerLease(worker: worker, token: token, duration: duration))
    }

    /// Renews on a watched connection (`watchedTransaction(_:within:cancelled:_:)`): a renewal cut
    /// off from the server ends by the lease's expiry, and at once when the run ends, rather than
    /// hold the run open for ever.
    public func renewLease(_ lease: WorkerLease) async throws {
        if isAbandoned(lease) { throw leaseLost(lease) }
        let logger = self.logger
        let renewed: Bool
        do {
            renewed = try await watchedTransaction("renew the lease on", within: lease.duration, cancelled: .giveUp) { connection in
                try await Self.renew(lease, connection, logger)
            }
        } catch let fault as ConnectionFault {
            throw fault.error
        }
        if !renewed { throw leaseLost(lease) }
        await foldCounts(within: lease.duration / 3)
    }

    /// Deletes the lease; what it still holds is left to the others' next claims, and the last worker
    /// to leave frees what nobody took.
    public func releaseLease(_ lease: WorkerLease) async throws {
        claimPositions.withLock { positions in
            positions = positions.filter { $0.key.token != lease.token }
        }
        skippedRecords.withLock { skipped in
            skipped = skipped.filter { $0.key.token != lease.token }
        }
        let logger = self.logger
        try await transaction("release the lease on") { connection in
            // Workers leave one at a time, so that the last one sees that it is the last.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive leases'))", logger: logger)
            var delete = SQLStatement()
            delete.sql = "DELETE FROM rederive_leases WHERE token = \(delete.bind(lease.token))"
            try await connection.run(delete, logger: logger)
            // What it still holds is left to the next claims of the others, as a dead worker's is.
            try await Self.reapLeases(connection, logger)
            try await Self.freeOrphanedClaimsOfTheLast(connection, logger)
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

    /// Whether the lease is still there, locking its row for key share until the transaction ends:
    /// a heartbeat (which writes other columns) goes on beside it, but no one deletes the lease
    /// meanwhile. A commit checks its lease so: one whose lease was reaped stores nothing, even
    /// before another lease takes its records over.
    static func holdsForCommit(_ lease: WorkerLease, _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        var statement = SQLStatement()
        statement.sql = "SELECT count(*) FROM (SELECT 1 FROM rederive_leases WHERE token = \(statement.bind(lease.token)) FOR KEY SHARE) l"
        return try await connection.count(statement, logger: logger) > 0
    }

    /// Gives the lease up in this process: it is renewed no more, and claims and commits under it
    /// throw `leaseLost`, so that the run takes a new one. Its row stays until it expires; what it
    /// holds is then taken over, as a dead worker's is.
    func abandon(_ lease: WorkerLease) {
        _ = abandonedLeases.withLock { $0.insert(lease.token) }
    }

    /// Whether this process gave the lease up (``abandon(_:)``).
    func isAbandoned(_ lease: WorkerLease) -> Bool {
        abandonedLeases.withLock { $0.contains(lease.token) }
    }

    /// Deletes the expired leases, and those of processes of this host that no longer run (see
    /// `WorkerIdentity/hasEndedOnThisHost`: a pid given to a later process counts as ended). Their
    /// records keep the token of the lease that is gone: claims take such records first. Never waits:
    /// a lease locked by a transaction still open (a worker cut off mid-commit, whose session the
    /// server ends after `idle_in_transaction_session_timeout`) is left for a later claim. A claim
    /// spares its own lease (`own`): expired after an outage but still there, it is renewed by the next
    /// heartbeat, and its claims and its run are still the process's, since no one took them over.
    static func reapLeases(_ connection: PostgresConnection, _ logger: Logger, sparing own: WorkerLease? = nil) async throws {
        var find = SQLStatement()
        find.sql = "SELECT token, process_id, process_start FROM rederive_leases WHERE host = \(find.bind(WorkerIdentity.thisHost))"
        let ended = try await connection.run(find, logger: logger).collect { row in
            let (token, processID, start) = try row.decode((String, Int32, String?).self)
            return (token, WorkerIdentity(host: WorkerIdentity.thisHost, processID: processID, start: start.flatMap(ProcessStart.init)))
        }.filter(\.1.hasEndedOnThisHost).map(\.0)
        var reap = SQLStatement()
        reap.sql = """
            DELETE FROM rederive_leases WHERE token IN (
                SELECT token FROM rederive_leases WHERE (expires_at < clock_timestamp() OR token = ANY(\(reap.bind(ended))))
                AND token <> \(reap.bind(own?.token ?? ""))
                FOR UPDATE SKIP LOCKED)
            """
        try await connection.run(reap, logger: logger)
    }

    /// Frees the records claimed by leases that are gone, once no lease is left: while workers live,
    /// their claims take such records over. Never waits for a record a transaction still locks.
    static func freeOrphanedClaimsOfTheLast(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            UPDATE rederive_records r SET claimed_by = NULL FROM (
                SELECT x.source, x.record_id FROM rederive_records x
                WHERE x.claimed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rederive_leases l WHERE l.token = x.claimed_by)
                AND NOT EXISTS (SELECT 1 FROM rederive_leases)
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

    /// The unexpired leases of processes that still run, with their claimed and committed counts.
    public func liveWorkers() async throws -> [WorkerStatus] {
        let logger = self.logger
        let leases = try await withConnection("read") { connection in
            try await connection.query("""
                SELECT l.host, l.process_id, l.process_start,
                    (SELECT coalesce(sum(s.derived + s.unchanged + s.failed), 0)::bigint FROM rederive_run_shares s WHERE s.token = l.token),
                    l.renewed_at, l.expires_at,
                    (SELECT count(*) FROM rederive_records r WHERE r.claimed_by = l.token)
                FROM rederive_leases l WHERE l.expires_at >= clock_timestamp() ORDER BY l.acquired_at
                """, logger: logger).collect { row in
                let (host, pid, start, done, renewed, expires, claimed) = try row.decode((String, Int32, String?, Int64, Date, Date, Int64).self)
                return WorkerStatus(
                    worker: WorkerIdentity(host: host, processID: pid, start: start.flatMap(ProcessStart.init)), claimed: Int(claimed), done: Int(done),
                    lastHeartbeat: renewed, expiresAt: expires
                )
            }
        }
        // A process of this host that was killed derives nothing, though no worker reaped its lease yet.
        return leases.filter { !$0.worker.hasEndedOnThisHost }
    }
}
#endif
