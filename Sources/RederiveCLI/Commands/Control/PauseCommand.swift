import ArgumentParser
import Rederive

/// `rederive pause`: hold the work on a pipeline, on every host, until `rederive resume`.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Hold the work on a pipeline (or one processor's) on every host until rederive resume.",
        discussion: """
            The pause is kept in the database. Every worker (rederive run, rederive watch, a runner in an app) \
            reads it within one heartbeat of its lease (a third of --lease-duration, 5 s by default), stops \
            claiming, derives and commits what it had claimed, and waits, keeping its lease: its run stays \
            open and goes on with its counts when resumed. Runs started while paused wait too. \
            rederive status shows pausing until every worker has stopped, then paused.
            """
    )

    @OptionGroup var scope: ControlScopeOptions

    @OptionGroup var verbosity: VerbosityOptions

    func run() async throws {
        let console = verbosity.console(scope.database.environment.console)
        let scopes = try scope.scopes()
        let store = try await scope.database.openForWriting()
        for item in scopes {
            let paused = try await store.pause(item, by: .current)
            console.line(paused
                ? "paused \(ControlScopeOptions.describe(item)): its workers stop claiming within one heartbeat"
                : "\(ControlScopeOptions.describe(item)) was paused already")
        }
        console.line("go on with `\(scope.command("resume"))`")
    }
}
