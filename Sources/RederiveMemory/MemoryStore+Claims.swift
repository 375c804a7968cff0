import Foundation
import Rederive
import Synchronization

/// Claiming batches of stale records, shared by every lease on the store.
///
/// A claim marks its records with the lease's token, so that no other live lease claims them. Each
/// lease moves a cursor through the ids; records whose lease is gone (expired and reaped) are taken
/// first, wherever they stand. At the end of the ids a claim looks again from the start, for records
/// freed meanwhile, and while other live leases still hold stale records it waits for them rather
/// than end: if their process dies, their lease expires and the records come back. A lease attached
/// to a run never claims a record that run committed already.
extension MemoryStore {
    /// Claims up to `limit` pending records that no other live lease holds, orphaned ones first; waits
    /// while others hold what is left, and returns none once nothing is left for this run.
    public func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord] {
        while true {
            switch try state.withLock({ state in try Self.claimOnce(plan, limit: limit, byteLimit: byteLimit, lease: lease, &state) }) {
            case .claimed(let records):
                return records
            case .nothing:
                return []
            case .heldByOthers:
                do {
                    try await Task.sleep(for: min(.milliseconds(50), lease.duration / 6))
                } catch {
                    return []
                }
            }
        }
    }

    /// What one claiming transaction found.
    private enum ClaimOutcome {
        case claimed([PendingRecord])
        /// Nothing is pending that no one holds, and no other lease holds anything pending.
        case nothing
        /// Nothing is free, but other live leases hold pending records, which may come free.
        case heldByOthers
    }

    private static func claimOnce(
        _ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease, _ state: inout MemoryState
    ) throws -> ClaimOutcome {
        guard state.holds(lease) else { throw leaseLost(lease) }
        // Others' expired leases go; this one is still this process's, as it is claiming.
        let own = state.leases[lease.token]
        state.reapLeases(now: Date())
        state.leases[lease.token] = own
        let table = plan.pipeline.table
        guard let records = state.tables[table]?.records else { return .nothing }
        let key = ClaimKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        let run = own?.runID
        let leases = state.leases
        func pending(_ id: Int64, _ record: MemoryRecord) -> Bool {
            (run == nil || record.committedRun != run) && !state.staleProcessors(plan, id).isEmpty
        }
        while true {
            let cursor = state.claimCursors[key]
            let ids = records.keys.sorted()
            // Records of leases that are gone first, then free ones after the cursor.
            let orphaned = ids.filter { id in
                guard let holder = records[id]!.claimedBy else { return false }
                return leases[holder] == nil && pending(id, records[id]!)
            }
            let ranged = ids.filter { id in
                id > (cursor ?? .min) && records[id]!.claimedBy == nil && pending(id, records[id]!)
            }
            let picked = Array((orphaned + ranged).prefix(max(1, limit)))
            if picked.isEmpty {
                if cursor != nil {
                    state.claimCursors[key] = nil
                    continue
                }
                let heldByOthers = ids.contains { id in
                    guard let holder = records[id]!.claimedBy, holder != lease.token else { return false }
                    return leases[holder] != nil && pending(id, records[id]!)
                }
                return heldByOthers ? .heldByOthers : .nothing
            }
            let claimed = state.read(picked, plan, byteLimit: byteLimit)
            for record in claimed {
                state.tables[table]?.records[record.recordID]?.claimedBy = lease.token
            }
            let rangedSet = Set(ranged)
            if let last = claimed.map(\.recordID).filter(rangedSet.contains).max() {
                state.claimCursors[key] = last
            }
            return .claimed(claimed)
        }
    }
}
