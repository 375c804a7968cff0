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
            return Array(shellWords(line[dollar.upperBound...]).dropFirst())
        }
    }

    /// The words of a command line as a shell splits them, for the double quotes the examples use.
    static func shellWords(_ line: Substring) -> [String] {
        var words: [String] = []
        var word: String?
        var quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                word = word ?? ""
            } else if character == " ", !quoted {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let word { words.append(word) }
        return words
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
