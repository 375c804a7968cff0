import ArgumentParser
import Foundation
import RederiveCLI
import Testing

@Suite("help examples")
struct HelpExampleTests {
    /// Every command a person sees in `rederive --help`.
    static let visibleCommands = RederiveCommand.subcommands
        .filter { $0.configuration.shouldDisplay }
        .map { $0.configuration.commandName ?? "" }

    /// The command lines under `EXAMPLES:`, without the invocation.
    static func exampleLines(_ help: String) -> [[String]] {
        guard let section = help.range(of: "\nEXAMPLES:\n") else { return [] }
        return help[section.upperBound...].split(separator: "\n").compactMap { line in
            guard let dollar = line.range(of: "$ ") else { return nil }
            return line[dollar.upperBound...].split(separator: " ").dropFirst().map(String.init)
        }
    }

    @Test(arguments: visibleCommands + ["--help"])
    func everyHelpEndsWithExamplesThatParse(command: String) async throws {
        try await CommandHarness.withHarness { harness in
            for arguments in command == "--help" ? [["--help"], ["help"]] : [[command, "--help"], ["help", command]] {
                let outcome = try await harness.rederive(arguments)
                #expect(outcome.status == 0)
                let examples = Self.exampleLines(outcome.output)
                #expect((1...2).contains(examples.count), "\(arguments.joined(separator: " ")) shows \(examples.count) examples")
                // The examples come last: nothing but examples follows the heading.
                let tail = outcome.output[outcome.output.range(of: "\nEXAMPLES:\n")!.upperBound...]
                #expect(tail.split(separator: "\n").allSatisfy { $0.hasPrefix("  ") })
                for example in examples {
                    #expect(command == "--help" || example.first == command)
                    #expect(throws: Never.self, "\(example.joined(separator: " ")) does not parse") {
                        _ = try RederiveCommand.parseAsRoot(example)
                    }
                }
            }
        }
    }
}
