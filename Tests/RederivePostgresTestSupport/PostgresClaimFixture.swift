#if PostgreSQL
import Rederive
import RederivePostgres
import RoomScan

/// A fresh PostgreSQL database holding RoomScan records, for tests that claim and commit through the
/// store itself, and leases on it.
package struct PostgresClaimFixture {
    package static let emptyScan = Array(#"{"walls": [], "doors": [], "windows": [], "openings": [], "objects": []}"#.utf8)
    package let store: PostgresStore
    package let pipeline = RoomScan.pipeline
    package var plan: RunPlan { RunPlan(pipeline: pipeline) }

    /// Records `scan-0`, `scan-1`, … of the payloads given, in a new database of the shared cluster;
    /// the store reaches it through the port given (a relay's), or directly.
    package init(holding payloads: [[UInt8]], port: Int? = nil) async throws {
        var url = try PostgresServer.shared().makeDatabase()
        if let port {
            url = "postgres://postgres@127.0.0.1:\(port)/\(PostgresServer.databaseName(in: url))?sslmode=disable"
        }
        store = try await PostgresStore(url: url)
        try await store.prepare(pipeline)
        _ = try await store.importPayloads(payloads.enumerated().map { ("scan-\($0.offset)", $0.element) }, into: pipeline)
    }

    /// `count` records of empty scans, reached through `port` when given.
    package init(records count: Int, port: Int? = nil) async throws {
        try await self.init(holding: Array(repeating: Self.emptyScan, count: count), port: port)
    }

    package func lease(_ processID: Int32, on host: String = "h", lasting duration: Duration = .seconds(30)) async throws -> WorkerLease {
        guard case .acquired(let lease) = try await store.acquireLease(for: WorkerIdentity(host: host, processID: processID), duration: duration) else {
            throw RederiveError(.leaseLost, "no lease for pid \(processID)")
        }
        return lease
    }
}
#endif
