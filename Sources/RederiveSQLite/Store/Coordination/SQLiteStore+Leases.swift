import Foundation
import GRDB
import Rederive

/// One process derives a SQLite database at a time: the lease says which, and fences its commits.
extension SQLiteStore {
    /// Takes the database's one runner lease, unless another live process holds it: then says who does.
    /// A lease that expired, or whose process of this host no longer runs, is taken over.
    public func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        let token = UUID().uuidString
        let seconds = duration.secondsValue
        return try await write { db in
            let now = Date().timeIntervalSince1970
            if let row = try Row.fetchOne(
                db, sql: "SELECT holder, host, process_id, expires_at FROM rederive_leases WHERE name = ?",
                arguments: [WorkerLeaseSchema.runnerLease]
            ), (row["expires_at"] as Double) > now {
                let holder = WorkerIdentity(host: row["host"], processID: row["process_id"])
                if !holder.hasEndedOnThisHost {
                    return .held(by: LeaseHolder(worker: row["holder"], expiresIn: (row["expires_at"] as Double) - now, command: holder.commandLine))
                }
            }
            try db.execute(sql: """
                INSERT INTO rederive_leases (name, holder, host, process_id, token, acquired_at, renewed_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, host = excluded.host,
                    process_id = excluded.process_id, token = excluded.token, acquired_at = excluded.acquired_at,
                    renewed_at = excluded.renewed_at, expires_at = excluded.expires_at,
                    run_id = NULL, hold = NULL, hold_since = NULL
                """, arguments: [
                    WorkerLeaseSchema.runnerLease, worker.description, worker.host, worker.processID,
                    token, now, now, now + seconds,
                ])
            return .acquired(WorkerLease(worker: worker, token: token, duration: duration))
        }
    }

    /// Moves the lease's expiry on by its duration; throws when another process took it over.
    public func renewLease(_ lease: WorkerLease) async throws {
        let seconds = lease.duration.secondsValue
        try await write { db in
            let now = Date().timeIntervalSince1970
            try db.execute(
                sql: "UPDATE rederive_leases SET renewed_at = ?, expires_at = ? WHERE name = ? AND token = ?",
                arguments: [now, now + seconds, WorkerLeaseSchema.runnerLease, lease.token]
            )
            if db.changesCount == 0 {
                throw Self.leaseLost(lease)
            }
        }
    }

    /// Gives the runner lease up, so the next process need not wait for it to expire.
    public func releaseLease(_ lease: WorkerLease) async throws {
        forgetClaims(of: lease)
        try await write { db in
            try db.execute(
                sql: "DELETE FROM rederive_leases WHERE name = ? AND token = ?",
                arguments: [WorkerLeaseSchema.runnerLease, lease.token]
            )
        }
    }

    /// Throws unless `lease` is still the database's runner lease: called inside every fenced commit.
    ///
    /// An expired lease that no one took over is still this process's: nobody else derived meanwhile,
    /// so committing is safe, and the commit renews it.
    static func checkLease(_ lease: WorkerLease, _ db: Database) throws {
        let now = Date().timeIntervalSince1970
        try db.execute(
            sql: "UPDATE rederive_leases SET renewed_at = ?, expires_at = ? WHERE name = ? AND token = ?",
            arguments: [now, now + lease.duration.secondsValue, WorkerLeaseSchema.runnerLease, lease.token]
        )
        if db.changesCount == 0 {
            throw leaseLost(lease)
        }
    }

    private static func leaseLost(_ lease: WorkerLease) -> RederiveError {
        RederiveError(
            .leaseLost,
            "the lease of \(lease.worker.description) on this database expired and another process took it over; nothing more is committed"
        )
    }
}
