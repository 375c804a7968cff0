import Rederive
import RoomScan
import Testing

/// The examples at the end of every `--help` name only pipelines and processors that exist, so that
/// a user who copies one does not meet "unknown pipeline".
@Suite("help examples name what exists")
struct HelpExampleNameTests {
    /// The values that follow `option` in an example's words.
    static func values(of option: String, in words: [String]) -> [String] {
        zip(words, words.dropFirst()).filter { $0.0 == option }.map(\.1)
    }

    @Test(arguments: HelpExampleTests.visibleCommands)
    func everyPipelineAndProcessorAnExampleNamesIsRegistered(command: String) async throws {
        try await CommandHarness.withHarness { harness in
            let help = try await harness.rederive(command, "--help")
            let processors = Set(RoomScan.processors.map(\.name))
            for example in HelpExampleTests.exampleLines(help.output) {
                for pipeline in Self.values(of: "--pipeline", in: example) {
                    #expect(pipeline == RoomScan.pipeline.name, "`\(example.joined(separator: " "))` names pipeline \(pipeline)")
                }
                for processor in Self.values(of: "--processor", in: example) {
                    #expect(processors.contains(processor), "`\(example.joined(separator: " "))` names processor \(processor)")
                }
            }
        }
    }
}
