import Foundation
import Rederive
import RederiveCodec
import RederiveTestSupport
import RoomScan
import RoomScanGenerator
import Testing

/// RoomScan's projections through the commands, on every store: a bump derives every real export and
/// generated scan from its projection to the values its payload gives, each reason a projection
/// cannot serve falls back to the payload and rewrites it, and `verify --projections`, `status`,
/// `projections --drop`, `reset` and `rollback` agree on what is stored.
@Suite("RoomScan projections through the commands", .serialized, .timeLimit(.minutes(5)))
struct RoomScanProjectionTests {
    /// The real exports and the generated scans, each a record.
    static let generatedCount = 24
    static var recordCount: Int { RealExports.names.count + generatedCount }

    /// Imports every real export and ``generatedCount`` generated scans (keys `generated-N`).
    static func importCorpus(_ harness: CommandHarness) async throws {
        let generated = harness.directory.appendingPathComponent("generated", isDirectory: true)
        try FileManager.default.createDirectory(at: generated, withIntermediateDirectories: true)
        let generator = RoomScanGenerator(seed: 24)
        for index in 0..<generatedCount {
            try Data(generator.scan(at: index)).write(to: generated.appendingPathComponent("generated-\(index).json"))
        }
        let imported = try await harness.rederive("import", RealExports.exportsDirectory, generated.path)
        try #require(imported.status == 0, "\(imported.errors)")
    }

    /// Runs `body` on a new database of `store` holding the corpus, derived once, with its values by key.
    static func withDerivedCorpus(_ store: TestStore, _ body: (CommandHarness, [String: [String]]) async throws -> Void) async throws {
        try await store.withHarness { harness in
            try await importCorpus(harness)
            try await succeed(harness, "run", "--progress", "none")
            try await body(harness, try await values(harness))
        }
    }

    /// Every record's derived values, as the database prints them, by key.
    static func values(_ harness: CommandHarness) async throws -> [String: [String]] {
        let columns = RoomScan.pipeline.outputColumns.map { "d.\"\($0.name)\"" }.joined(separator: ", ")
        let rows = try await harness.rows("SELECT s.scan_id, \(columns) FROM room_scans s JOIN room_scans_derived d ON d.id = s.id")
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Array($0.dropFirst())) })
    }

    /// Checks every projection written from the payload its record holds now against that payload
    /// decoded afresh, and its checksum; returns how many there are.
    static func projectionsAgreeWithPayloads(_ harness: CommandHarness) async throws -> Int {
        let rows = try await harness.rows("""
            SELECT s.id, s.payload, p.bytes, p.checksum FROM room_scans s
            JOIN rederive_records r ON r.source = 'room_scans' AND r.record_id = s.id
            JOIN rederive_projections p ON p.pipeline = 'roomscan' AND p.record_id = s.id AND p.generation = r.generation
            """)
        for row in rows {
            let bytes = try CommandHarness.blob(row[2])
            let payload = try PayloadCodec().decode(try CommandHarness.blob(row[1]))
            #expect(bytes == (try CapturedRoom(json: payload)).projectionBytes, "record \(row[0])")
            #expect(String(PayloadCodec.digest(bytes)) == row[3], "record \(row[0])")
        }
        return rows.count
    }

    /// Runs a command that must succeed; its standard output.
    @discardableResult
    static func succeed(_ harness: CommandHarness, _ arguments: String...) async throws -> String {
        let outcome = try await harness.rederive(arguments)
        #expect(outcome.status == 0, "rederive \(arguments.joined(separator: " ")): \(outcome.errors)")
        return outcome.output
    }

    @Test("a bump derives every export and generated scan from its projection, to the values its payload gives", arguments: TestStore.available)
    func aBumpDerivesFromProjectionsToThePayloadsValues(store: TestStore) async throws {
        try await store.withHarness { harness in
            try await Self.importCorpus(harness)
            let count = Self.recordCount
            let first = try await Self.succeed(harness, "run", "--progress", "none")
            #expect(first.contains("projections: 0 used, \(count) derived from the payload instead (\(count) missing)"), "\(first)")
            #expect(try await Self.projectionsAgreeWithPayloads(harness) == count)
            let fromPayloads = try await Self.values(harness)
            #expect(fromPayloads.count == count)

            try await Self.succeed(harness, "invalidate")
            let bump = try await Self.succeed(harness, "run", "--progress", "none")
            #expect(bump.contains("projections: \(count) used, 0 derived from the payload instead"), "\(bump)")
            #expect(try await Self.values(harness) == fromPayloads)

            // Derived from payloads again, to the same values; the projections are written anew.
            try await Self.succeed(harness, "invalidate")
            let again = try await Self.succeed(harness, "run", "--no-projection", "--progress", "none")
            #expect(!again.contains("projections:"), "\(again)")
            #expect(try await Self.values(harness) == fromPayloads)
            #expect(try await Self.projectionsAgreeWithPayloads(harness) == count)

            #expect(try await Self.succeed(harness, "verify", "--projections").contains("verified \(count) projections: every one matches its payload"))
            #expect(try await Self.succeed(harness, "status").contains("roomscan: \(count) records have a current projection (version 2)"))
        }
    }

    @Test(
        "a payload replaced by another program, a flipped byte, an older version and a missing projection each fall back",
        arguments: TestStore.available
    )
    func everyFallbackReasonFallsBack(store: TestStore) async throws {
        try await Self.withDerivedCorpus(store) { harness, derived in
            let count = Self.recordCount
            let names = RealExports.names.map { String($0.dropLast(".json".count)) }
            let (replaced, flipped, older, missing, source) = (names[0], names[1], names[2], names[3], names[5])
            let id: (String) async throws -> Int = { key in try await harness.count("SELECT id FROM room_scans WHERE scan_id = '\(key)'") }

            // Another program replaces a payload with another export's.
            try await harness.execute("UPDATE room_scans SET payload = (SELECT payload FROM room_scans WHERE scan_id = '\(source)') WHERE scan_id = '\(replaced)'")
            // A byte flipped inside the first wall's length: the bytes would still decode, to another length.
            let flippedID = try await id(flipped)
            let stored = try CommandHarness.blob(try #require(try await harness.rows("SELECT bytes FROM rederive_projections WHERE record_id = \(flippedID)").first?.first))
            var damaged = stored
            damaged[4 + 4] ^= 0x01
            #expect(try CapturedRoom(projection: damaged).wallLength != (try CapturedRoom(projection: stored)).wallLength)
            try await harness.execute("UPDATE rederive_projections SET bytes = \(harness.blobLiteral(damaged)) WHERE record_id = \(flippedID)")
            try await harness.execute("UPDATE rederive_projections SET version = 0 WHERE record_id = \(try await id(older))")
            try await harness.execute("DELETE FROM rederive_projections WHERE record_id = \(try await id(missing))")
            let damagedCheck = try await harness.rederive("verify", "--projections")
            #expect(damagedCheck.status == 4 && damagedCheck.output.contains("the stored projection does not match its checksum"), "\(damagedCheck.output)")

            try await Self.succeed(harness, "invalidate")
            let bump = try await Self.succeed(harness, "run", "--progress", "none")
            #expect(
                bump.contains("projections: \(count - 4) used, 4 derived from the payload instead (1 missing, 1 payload changed, 1 version changed, 1 checksum mismatch)"),
                "\(bump)"
            )
            // Each record's values are those of its payload now: the replaced one's are the other export's.
            var expected = derived
            expected[replaced] = derived[source]
            #expect(try await Self.values(harness) == expected)
            // Every projection is written again from the payload it now belongs to, and serves the next bump.
            #expect(try await Self.projectionsAgreeWithPayloads(harness) == count)
            try await Self.succeed(harness, "invalidate")
            let again = try await Self.succeed(harness, "run", "--progress", "none")
            #expect(again.contains("projections: \(count) used, 0 derived from the payload instead"), "\(again)")
        }
    }

    @Test("verify --projections finds a projection that matches its checksum but not its payload", arguments: TestStore.available)
    func verifyFindsAProjectionOfAnotherPayload(store: TestStore) async throws {
        try await Self.withDerivedCorpus(store) { harness, _ in
            let names = RealExports.names.map { String($0.dropLast(".json".count)) }
            // Another record's projection with its own checksum: it reads back, but is not this payload's.
            try await harness.execute("""
                UPDATE rederive_projections SET bytes = (SELECT p.bytes FROM rederive_projections p JOIN room_scans s ON s.id = p.record_id WHERE s.scan_id = '\(names[1])'),
                    checksum = (SELECT p.checksum FROM rederive_projections p JOIN room_scans s ON s.id = p.record_id WHERE s.scan_id = '\(names[1])')
                WHERE record_id = (SELECT id FROM room_scans WHERE scan_id = '\(names[0])')
                """)
            let verified = try await harness.rederive("verify", "--projections", "--sample", "1000")
            #expect(verified.status == 4, "\(verified.output) \(verified.errors)")
            #expect(verified.output.contains(names[0]) && verified.output.contains("differs from the payload's"), "\(verified.output)")
            #expect(verified.output.contains("verified \(Self.recordCount) projections: 1 differs from its payload"), "\(verified.output)")
        }
    }

    @Test("projections --drop, reset and rollback keep projections consistent with their payloads", arguments: TestStore.available)
    func dropResetAndRollbackKeepProjectionsConsistent(store: TestStore) async throws {
        try await Self.withDerivedCorpus(store) { harness, derived in
            let count = Self.recordCount

            // Rolling back a run restores values and stamps; the projections depend on the payloads
            // alone, stay current and serve the next bump.
            let run = try await harness.count("SELECT max(id) FROM rederive_runs")
            try await Self.succeed(harness, "rollback", String(run))
            #expect(try await Self.values(harness).values.allSatisfy { $0.allSatisfy { $0 == nullCellText } })
            #expect(try await Self.succeed(harness, "projections").contains("roomscan: \(count) records with a current projection (version 2)"))
            let rederived = try await Self.succeed(harness, "run", "--progress", "none")
            #expect(rederived.contains("projections: \(count) used, 0 derived from the payload instead"), "\(rederived)")
            #expect(try await Self.values(harness) == derived)
            #expect(try await Self.projectionsAgreeWithPayloads(harness) == count)

            // Dropped: the next bump derives from payloads and writes them all again.
            #expect(try await Self.succeed(harness, "projections", "--drop").contains("dropped \(count) projections of roomscan"))
            #expect(try await Self.succeed(harness, "projections").contains("roomscan: 0 records with a current projection"))
            try await Self.succeed(harness, "invalidate")
            let dropped = try await Self.succeed(harness, "run", "--progress", "none")
            #expect(dropped.contains("projections: 0 used, \(count) derived from the payload instead (\(count) missing)"), "\(dropped)")
            #expect(try await Self.projectionsAgreeWithPayloads(harness) == count)

            // Reset clears them with the rest of the derived state.
            try await Self.succeed(harness, "reset", "--yes")
            #expect(try await harness.count("SELECT count(*) FROM rederive_projections") == 0)
            #expect(try await Self.succeed(harness, "status").contains("roomscan: 0 records have a current projection"))
        }
    }
}
