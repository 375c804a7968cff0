import Foundation
import Rederive
@testable import RederiveCLI
import RoomScan
import Testing

/// `generate` and `demo` write a payload per record: their counts are bounded, the size is estimated
/// before anything is written, and a corpus the disk cannot hold is refused.
@Suite("Generated counts", .timeLimit(.minutes(5)))
struct GeneratedCountTests {
    @Test func generateRefusesACountThatWouldFillTheDiskBeforeCreatingAnything() async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive("generate", "--count", "100000000")
            #expect(outcome.status == ExitStatus.usage)
            #expect(outcome.errors.contains("--count 100000000 is more than 1000000, the most synthetic records generate writes"), "\(outcome.errors)")
            #expect(!FileManager.default.fileExists(atPath: harness.databasePath))
        }
    }

    @Test func demoRefusesACountBeyondADemo() async throws {
        try await CommandHarness.withHarness { harness in
            let demo = harness.directory.appendingPathComponent("rederive-demo.sqlite").path
            let outcome = try await harness.rederive("demo", "--count", "100000000", "--db", demo)
            #expect(outcome.status == ExitStatus.usage)
            #expect(outcome.errors.contains("--count 100000000 is more than 100000, the most records of a demo"), "\(outcome.errors)")
            #expect(!FileManager.default.fileExists(atPath: demo))
        }
    }

    @Test func theEstimateIsCloseToWhatGenerateWrites() async throws {
        try await CommandHarness.withHarness { harness in
            let corpus = SyntheticCorpus(source: CommandHarness.samples, pipeline: RoomScan.pipeline, seed: 4, corruptFraction: 0)
            let estimate = corpus.estimatedBytes(count: 300)
            #expect(try await harness.rederive("generate", "--count", "300", "--seed", "4").status == 0)
            let written = try FileManager.default.attributesOfItem(atPath: harness.databasePath)[.size] as? Int ?? 0
            #expect(Double(estimate) > Double(written) * 0.6 && Double(estimate) < Double(written) * 1.6, "estimated \(estimate), wrote \(written)")
        }
    }

    @Test func aCorpusLargerThanTheFreeSpaceIsRefusedNamingBothSizes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString).sqlite").path
        let free = try #require(DiskSpace.available(at: path))
        let error = #expect(throws: RederiveError.self) {
            try DiskSpace.require(free + 1_000_000_000, for: "5 synthetic records", at: path, instead: "generate fewer")
        }
        #expect(error?.message.hasPrefix("5 synthetic records need about ") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(" is free on the disk of \(path); generate fewer") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: path))
        try DiskSpace.require(1, for: "1 synthetic record", at: path, instead: "generate fewer")
    }

    @Test func sizesAreWrittenInDecimalUnits() {
        #expect(Format.bytes(512) == "512 bytes")
        #expect(Format.bytes(57_300) == "57 KB")
        #expect(Format.bytes(5_730_000_000) == "5.7 GB")
        #expect(Format.bytes(57_300_000_000) == "57 GB")
    }
}
