import ArgumentParser
import Rederive

/// `rederive resume`: lift the pauses of a pipeline.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Lift the pause of a pipeline (and of each of its processors), or of one processor.",
        discussion: """
            Paused workers claim again within one heartbeat of their lease, and their runs go on with the \
            counts they had. Without --processor, the pipeline's pause and every processor's are lifted.
            """
    )

    @OptionGroup var scope: ControlScopeOptions

    @OptionGroup var verbosity: VerbosityOptions

    func run() async throws {
        let console = verbosity.console(scope.database.environment.console)
        let scopes = try scope.scopes()
        let store = try await scope.database.openForWriting()
        for item in scopes {
            let lifted = try await store.resume(item)
            if lifted.isEmpty {
                console.line("\(ControlScopeOptions.describe(item)) was not paused")
            } else {
                console.line("resumed \(lifted.map(ControlScopeOptions.describe).joined(separator: ", ")): its workers claim again within one heartbeat")
            }
            // A processor's resume leaves its pipeline's pause in force.
            let remaining = try await store.controls().pauses.map(\.scope).filter { $0.pipeline == item.pipeline && $0.contains(item) }
            if let still = remaining.first {
                console.line("\(ControlScopeOptions.describe(still)) stays paused: resume it without --processor")
            }
        }
    }
}
