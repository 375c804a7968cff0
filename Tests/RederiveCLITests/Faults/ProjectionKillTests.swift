import Foundation
import RederiveCodec
import RoomScanGenerator
import Testing

/// A run that writes projections, killed with SIGKILL while another program replaces payloads, leaves
/// no current projection that disagrees with its record's payload, on every store: each is committed
/// with the values of the same payload, fenced by its generation.
@Suite("Projections survive kill -9", .serialized, .timeLimit(.minutes(5)))
struct ProjectionKillTests {
    @Test(arguments: TestStore.available)
    func aKilledRunLeavesNoProjectionThatDisagreesWithItsPayload(store: TestStore) async throws {
        try await store.withHarness { harness in
            let generated = try await harness.rederive("generate", "--count", "300", "--seed", "24", "--corrupt", "0")
            try #require(generated.status == 0, "\(generated.errors)")

            // Slowed down to 60 s for the corpus, so that it is killed mid-run after a few commits even on a loaded machine.
            let killed = try RederiveProcess.start(
                ["run", "--db", harness.databasePath, "--max-rate", "5", "--batch-size", "10", "--progress", "json"], in: harness.directory
            )
            _ = try await killed.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 2 }
            // Another program replaces payloads while the run derives: some were committed, some in flight.
            let generator = RoomScanGenerator(seed: 99)
            let replaced = try await harness.rows("SELECT id, scan_id FROM room_scans WHERE id % 7 = 1")
            try #require(!replaced.isEmpty)
            let statements = try replaced.map { row in
                harness.replacingPayload(key: row[1], with: PayloadCodec.encode(generator.scan(at: try #require(Int(row[0])))))
            }
            try await harness.execute(statements.joined(separator: ";\n"))
            _ = try await killed.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 4 }
            killed.kill()
            let outcome = try await killed.wait()
            #expect(outcome.signaled && outcome.status == SIGKILL, "\(outcome.status): \(outcome.errors)")

            let checked = try await RoomScanProjectionTests.projectionsAgreeWithPayloads(harness)
            #expect(checked > 0 && checked < 300, "\(checked) current projections after the kill")

            // The next run finishes the work; every record then has a current projection that agrees.
            let next = try await harness.rederive("run", "--progress", "none")
            #expect(next.status == 0, "\(next.errors)")
            #expect(next.output.contains("projections: "), "\(next.output)")
            #expect(try await RoomScanProjectionTests.projectionsAgreeWithPayloads(harness) == 300)
        }
    }
}
