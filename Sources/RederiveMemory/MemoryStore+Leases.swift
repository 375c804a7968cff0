import Foundation
import Rederive
import Synchronization

/// Every runner takes a lease of its own, as on a store shared by many hosts: many derive at once,
/// each claiming records no other live lease holds. A lease that is not renewed expires; the next
/// worker to take a lease or claim reaps it, and its records go to the others. Until then an expired
/// lease is still its process's, as on SQLite: nobody else took its work over.
extension MemoryStore {
    /// Takes a lease of this process's own, reaping the leases that expired: never held by another.
    public func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        let token = UUID().uuidString
        state.withLock { state in
            let now = Date()
            state.reapLeases(now: now)
            state.leases[token] = MemoryLease(
                worker: worker, duration: duration, acquiredAt: now, renewedAt: now, expiresAt: now + duration.timeInterval
            )
        }
        return .acquired(WorkerLease(worker: worker, token: token, duration: duration))
    }

    /// Extends the lease by its duration; throws `RederiveError.Code.leaseLost` once it was reaped.
    public func renewLease(_ lease: WorkerLease) async throws {
        try state.withLock { state in
            guard state.holds(lease) else { throw Self.leaseLost(lease) }
            let now = Date()
            state.leases[lease.token]?.renewedAt = now
            state.leases[lease.token]?.expiresAt = now + lease.duration.timeInterval
        }
    }

    /// Gives the lease and its claims back at once.
    public func releaseLease(_ lease: WorkerLease) async throws {
        state.withLock { state in
            state.leases[lease.token] = nil
            state.claimCursors = state.claimCursors.filter { $0.key.token != lease.token }
            for (name, table) in state.tables {
                for (id, record) in table.records where record.claimedBy == lease.token {
                    state.tables[name]?.records[id]?.claimedBy = nil
                }
            }
        }
    }

    /// The leases that have not expired, oldest first, with their claimed and committed records.
    public func liveWorkers() async throws -> [WorkerStatus] {
        state.withLock { state in
            let now = Date()
            let claimed = state.tables.values.flatMap(\.records.values).compactMap(\.claimedBy)
            return state.leases
                .filter { $0.value.expiresAt >= now && !$0.value.worker.hasEndedOnThisHost }
                .sorted { $0.value.acquiredAt < $1.value.acquiredAt }
                .map { token, lease in
                    WorkerStatus(
                        worker: lease.worker, claimed: claimed.count { $0 == token }, done: lease.done,
                        lastHeartbeat: lease.renewedAt, expiresAt: lease.expiresAt
                    )
                }
        }
    }

    /// The error of a claim, commit or renewal under a lease that was reaped.
    static func leaseLost(_ lease: WorkerLease) -> RederiveError {
        RederiveError(
            .leaseLost,
            "the lease of \(lease.worker.description) on the in-memory store expired and another process took it over; nothing more is committed"
        )
    }
}

extension Duration {
    /// The duration in seconds, to add to a `Date`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
