#if PostgreSQL
import Rederive
import RederivePostgres
import RoomScan

/// A fresh PostgreSQL database holding RoomScan records of empty scans (`scan-0`, `scan-1`, …), for
/// tests that claim and commit through the store itself, and leases on it.
struct PostgresClaimFixture {
    static let emptyScan = Array(#"{"walls": [], "doors": [], "windows": [], "openings": [], "objects": []}"#.utf8)
    let store: PostgresStore
    let pipeline = RoomScan.pipeline
    var plan: RunPlan { RunPlan(pipeline: pipeline) }

    init(records count: Int) async throws {
        store = try await PostgresStore(url: try PostgresServer.shared().makeDatabase())
        try await store.prepare(pipeline)
        _ = try await store.importPayloads((0..<count).map { ("scan-\($0)", Self.emptyScan) }, into: pipeline)
    }

    func lease(_ processID: Int32, lasting duration: Duration = .seconds(30)) async throws -> WorkerLease {
        guard case .acquired(let lease) = try await store.acquireLease(for: WorkerIdentity(host: "h", processID: processID), duration: duration) else {
            throw RederiveError(.leaseLost, "no lease for pid \(processID)")
        }
        return lease
    }
}
#endif
