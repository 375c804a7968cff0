import Foundation
import Testing

/// A command a message suggests acts on the database the user named: copied as it is, it does not
/// fall back to `./rederive.sqlite` or `$REDERIVE_DB`.
@Suite("suggested commands")
struct SuggestedCommandTests {
    @Test func anUnknownRunsHintNamesTheDatabaseThatWasGiven() async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("rooms.sqlite").path
            #expect(try await harness.rederive("generate", "--count", "3", "--db", path).status == 0)
            let failures = try await harness.rederive("failures", "--run", "999", "--db", path)
            #expect(failures.status == 1)
            #expect(failures.errors == "rederive: no run 999 in \(path); `rederive history --db \(path)` lists its runs\n", "\(failures.errors)")
        }
    }
}
