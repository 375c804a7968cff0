import ArgumentParser
import Rederive

/// `rederive cancel`: end the runs in progress on a pipeline, keeping what they committed.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "End the runs in progress on a pipeline (or one processor's), keeping what they committed.",
        discussion: """
            Every worker of those runs, on every host, stops claiming within one heartbeat of its lease, derives \
            and commits what it had claimed, and ends the run as cancelled, paused or not. A cancelled run can be \
            rolled back as any run can (rederive rollback RUN). rederive run exits with status 5; a watcher ends \
            its run and goes on watching, so pause it first to keep it from deriving again. Exit status 1 when \
            no run is in progress.
            """
    )

    @OptionGroup var scope: ControlScopeOptions

    @OptionGroup var verbosity: VerbosityOptions

    func run() async throws {
        let console = verbosity.console(scope.database.environment.console)
        let scopes = try scope.scopes()
        let store = try await scope.database.openForWriting()
        var cancelled: [Int64] = []
        for item in scopes {
            cancelled += try await store.cancel(item)
        }
        let runs = Array(Set(cancelled)).sorted()
        guard !runs.isEmpty else {
            throw RederiveError(
                .invalidArgument,
                "nothing to cancel: no run of \(scopes.map(ControlScopeOptions.describe).joined(separator: ", ")) is in progress"
            )
        }
        for run in runs {
            console.line("cancelling run \(run): its workers commit what they claimed and end it within one heartbeat; undo it with `\(rollback(run))`")
        }
    }

    /// The rollback of `run`, as a message suggests it.
    private func rollback(_ run: Int64) -> String {
        var words = [scope.database.environment.invocation, "rollback", String(run)]
        if scope.database.path != nil { words += ["--db", Invocation.quoted(scope.database.databaseArgument)] }
        return words.joined(separator: " ")
    }
}
