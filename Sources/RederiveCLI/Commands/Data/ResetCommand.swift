import ArgumentParser
import Rederive

/// `rederive reset --yes`: clear derived state during development.
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Clear derived state (stamps, failures, derived columns) for development; payloads stay.",
        discussion: "Meant for apps before launch. Refuses without --yes. The next run derives every record again."
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Flag(help: "Confirm that the derived state of the database is to be cleared.")
    var yes = false

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let pipelines = try database.pipelines()
        guard yes else {
            throw RederiveError(
                .invalidArgument,
                "reset clears every stamp, failure and derived value of \(pipelines.map(\.table).joined(separator: ", ")) in \(database.databaseName); pass --yes to do it"
            )
        }
        let store = try await database.openForWriting()
        for pipeline in pipelines {
            let records = try await store.reset(pipeline)
            console.line("reset \(Format.count(records, "record")) of \(pipeline.table): derived values back to their defaults, payloads untouched")
        }
    }
}
