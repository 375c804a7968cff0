import Foundation
import GRDB
import Testing

/// A very long key (another program may write any key) is shortened in the `failures` table, so that
/// the other rows keep their width; JSON and CSV keep every key whole.
@Suite("long keys in tables")
struct LongKeyTableTests {
    @Test func aFiveThousandCharacterKeyDoesNotWidenTheFailuresTable() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "20", "--seed", "8", "--corrupt", "0.3").status == 0)
            #expect(try await harness.rederive("run", "--progress", "none").status == 3)
            let key = "scan-" + String(repeating: "x", count: 4_990) + "-tail"
            try await harness.connection().write { db in
                try db.execute(
                    sql: "UPDATE room_scans SET scan_id = ? WHERE id = (SELECT min(record_id) FROM rederive_failures WHERE current = 1)",
                    arguments: [key]
                )
            }
            let table = try await harness.rederive("failures")
            #expect(table.status == 0)
            let lines = table.output.split(separator: "\n")
            #expect(lines.count > 2)
            // Every row as wide as without the long key: the key's column takes 48 characters at most.
            let widest = lines.map(\.count).max() ?? 0
            #expect(widest < 400, "a line of \(widest) characters")
            #expect(table.output.contains("scan-xxxxxxxxxxxxxxxxxxx") && table.output.contains("…") && table.output.contains("x-tail"))
            let json = try await harness.rederive("failures", "--format", "json")
            #expect(json.output.contains(key))
        }
    }
}
