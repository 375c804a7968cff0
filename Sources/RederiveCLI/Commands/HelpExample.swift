import ArgumentParser

/// One example at the end of a command's `--help`: what it does, and the command line that does it.
struct HelpExample: Sendable {
    /// What the example does, as a short sentence.
    let purpose: String
    /// The arguments after the invocation (`run --parallel 8`).
    let arguments: String
}

/// A command whose `--help` ends with examples of its use.
protocol ExampleCommand {
    /// One or two examples, the most common use first.
    static var examples: [HelpExample] { get }
}

extension HelpExample {
    /// `message`, the help that `arguments` asked for, with the examples of the command it describes
    /// appended under `EXAMPLES:`; other messages are returned as they are.
    static func appending(to message: String, arguments: [String], invocation: String) -> String {
        guard message.hasPrefix("OVERVIEW:") || message.hasPrefix("USAGE:"),
              let command = helpedCommand(arguments) as? any ExampleCommand.Type
        else { return message }
        let lines = command.examples.map { example in
            "  \(example.purpose)\n    $ \(invocation) \(example.arguments)"
        }
        return message.trimmingTrailingNewlines + "\n\nEXAMPLES:\n" + lines.joined(separator: "\n\n")
    }

    /// The command whose help `arguments` ask for: `rederive run --help` and `rederive help run` name
    /// `run`; no subcommand names the root command.
    static func helpedCommand(_ arguments: [String]) -> any ParsableCommand.Type {
        let names = arguments.drop { $0 == "help" }.filter { !$0.hasPrefix("-") }
        guard let first = names.first,
              let subcommand = RederiveCommand.subcommands.first(where: { $0.configuration.commandName == first })
        else { return RederiveCommand.self }
        return subcommand
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: Substring {
        self[..<(lastIndex(where: { !$0.isNewline }).map(index(after:)) ?? startIndex)]
    }
}
