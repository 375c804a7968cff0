import Foundation
import Rederive
import Testing

@Suite("Run counts")
struct RunCountsTests {
    /// `changed` was `derived`: what an app encoded before the rename decodes, and encodes, as before.
    @Test func changedRecordsKeepTheirEncodedNameDerived() throws {
        let counts = RunCounts(changed: 3, unchanged: 2, failed: 1, skipped: 4)
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(counts)) as? [String: Int]
        #expect(encoded == ["derived": 3, "unchanged": 2, "failed": 1, "skipped": 4])
        let stored = Data(#"{"derived": 7, "unchanged": 0, "failed": 0, "skipped": 1}"#.utf8)
        #expect(try JSONDecoder().decode(RunCounts.self, from: stored) == RunCounts(changed: 7, skipped: 1))
    }
}
