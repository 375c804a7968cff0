import ArgumentParser
import Foundation
import Rederive

/// `rederive demo`: the newcomer's first command.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a demo database, derive it with progress, and show the status and failure report."
    )

    @Option(name: .customLong("db"), help: ArgumentHelp(
        "Where to build the demo database: a SQLite file, or an empty PostgreSQL database's URL.", valueName: "path-or-url"
    ))
    var path: String = "rederive-demo.sqlite"

    @Option(parsing: .unconditional, help: "How many synthetic records to generate.")
    var count: Int = 1_000

    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        try ValueBounds.demoRecords.check(count, "--count")
    }

    func run() async throws {
        let environment = CommandEnvironment.current
        let console = verbosity.console(environment.console)
        // Each step is as quiet, or as verbose, as the demo.
        let verbosityFlags = verbosity.quiet ? ["--quiet"] : verbosity.verbose ? ["--verbose"] : []
        guard let source = environment.samples.first,
              let pipeline = environment.registry.pipelines.first(where: { $0.name == source.pipeline })
        else {
            throw RederiveError(.invalidArgument, "the demo needs a pipeline with a sample generator")
        }
        let options = try DatabaseOptions.parse(["--db", path])
        try await prepareDemoDatabase(options, pipeline: pipeline)

        let rederive = environment.invocation
        let database = Invocation.quoted(options.databaseName)
        // The pipeline is named only when the executable registers several, as a person would type it.
        let choice = environment.registry.pipelines.count > 1 ? ["--pipeline", pipeline.name] : []
        let suffix = (["--db", database] + choice).joined(separator: " ")

        func step(_ title: String, _ arguments: [String]) async throws -> Int32 {
            console.line("\n$ \(rederive) \(arguments.joined(separator: " ")) \(suffix)   # \(title)")
            let status = await RederiveCommand.execute(
                arguments + verbosityFlags + ["--db", path, "--pipeline", pipeline.name], in: environment
            )
            if status != ExitStatus.success, status != ExitStatus.someFailed {
                throw ExitCode(status)
            }
            return status
        }

        console.line("rederive demo: \(Format.count(count, "synthetic scan")) for pipeline \"\(pipeline.name)\" in \(options.databaseName), 2% broken on purpose.")
        _ = try await step("make a corpus", ["generate", "--count", String(count), "--seed", "7", "--corrupt", "0.02"])
        let firstRun = try await step("derive every stale record", ["run"])
        _ = try await step("where every processor stands", ["status"])
        _ = try await step("what failed, and why: one line per record and cause", ["failures", "--limit", "8"])
        let processor = pipeline.processors[0].name
        _ = try await step("force one processor to run again", ["invalidate", "--processor", processor])
        _ = try await step("only that processor runs; its values are unchanged", ["run", "--progress", "none"])

        let suggestions = [
            ("status --format json", "every count, for programs"),
            ("failures --format csv", "one row per record and processor"),
            ("run", "nothing is stale: it returns at once"),
            ("run --retry-failed", firstRun == ExitStatus.someFailed
                ? "the broken records are tried again, and fail again (status 3)" : "records that failed are tried again"),
            ("history", "the runs so far"),
        ]
        let commands = suggestions.map { "\(rederive) \($0.0) \(suffix)" }
        let width = commands.map(\.count).max() ?? 0
        let tryNext = zip(commands, suggestions).map { command, suggestion in
            "  " + command.padding(toLength: width, withPad: " ", startingAt: 0) + "  # " + suggestion.1
        }

        console.line("""

            What happened:
            - Every record got a stamp per processor: the logic version that produced its values, from which payload.
            - The broken payloads became failure rows with their kind and message; every other record was derived\
            \(firstRun == ExitStatus.someFailed ? " (that run exited with status 3)" : "").
            - The second run re-derived only \(processor) and found its values unchanged.

            Try next (each line runs as printed, from this directory):
            \(tryNext.joined(separator: "\n"))

            Your own RoomPlan exports: \(rederive) import --db rooms.sqlite DIRECTORY, then \(rederive) run --db rooms.sqlite
            """)
        if rederive.contains("/") {
            console.line("To type just `rederive`, put it on your PATH: see \"Installing\" in README.md.")
        }
    }

    /// The demo's SQLite file is rebuilt each time, and any other file at that path is left alone. On
    /// PostgreSQL the demo builds its corpus in a database whose pipeline table is missing or empty,
    /// and never deletes anything there.
    private func prepareDemoDatabase(_ options: DatabaseOptions, pipeline: Pipeline) async throws {
        if let file = options.sqliteFile { return try removeEarlierDemo(file) }
        let store = try await options.open(.preparing(creating: true), pipelines: [])
        // Reading the table fails when it does not exist yet, which is as good as empty.
        let existing = (try? await store.sampleRecordIDs(of: pipeline, count: 1)) ?? []
        guard existing.isEmpty else {
            throw RederiveError(
                .invalidArgument,
                "\(options.databaseName) already holds records in \(pipeline.table); the demo builds its own, so give it an empty database (createdb rederive_demo)"
            )
        }
    }

    private func removeEarlierDemo(_ path: String) throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return }
        guard path == "rederive-demo.sqlite" || path.hasSuffix("/rederive-demo.sqlite") else {
            throw RederiveError(.file, "\(path) exists; the demo builds a new database, so name a file that does not exist")
        }
        for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
            try manager.removeItem(atPath: path + suffix)
        }
    }
}
