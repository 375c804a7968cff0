import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// The `rederive` command line, with every subcommand, for any set of pipelines.
///
/// An app's own executable registers its pipelines in code and gets the whole command line:
///
/// ```swift
/// import RederiveCLI
///
/// @main struct MyTool {
///     static func main() async {
///         await RederiveCommand.main(pipelines: [MyApp.notesPipeline])
///     }
/// }
/// ```
public struct RederiveCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rederive",
        abstract: "Keep derived columns up to date with the payloads they come from.",
        discussion: """
            Processors registered in code own derived columns and declare a logic version. Every record \
            carries a stamp per processor; `rederive run` re-derives exactly the records whose stamp is \
            missing, from another version, or from a payload that changed since.
            """,
        version: VersionText.text,
        subcommands: [
            DemoCommand.self,
            ImportCommand.self,
            RunCommand.self,
            StatusCommand.self,
            FailuresCommand.self,
            InvalidateCommand.self,
            HistoryCommand.self,
            GenerateCommand.self,
            BackupCommand.self,
            RestoreCommand.self,
            RollbackCommand.self,
            ResetCommand.self,
            VerifyCommand.self,
            MigrateCommand.self,
            WorkerCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line with the process's arguments and exits with the command's status.
    public static func main(pipelines: [Pipeline], samples: [SampleSource] = [], migrations: [SchemaMigration] = []) async {
        let registry: Registry
        let migrator: SchemaMigrator
        do {
            registry = try Registry(pipelines)
            migrator = try SchemaMigrator(migrations)
        } catch {
            Console.standard.errorLine("rederive: \(error.message)")
            Foundation.exit(ExitStatus.failure)
        }
        let environment = CommandEnvironment(
            registry: registry,
            samples: samples,
            migrator: migrations.isEmpty ? nil : migrator,
            console: .standard,
            variables: ProcessInfo.processInfo.environment,
            invocation: Invocation.current
        )
        let status = await execute(Array(CommandLine.arguments.dropFirst()), in: environment)
        Foundation.exit(status)
    }

    /// Parses and runs one command line, and returns its exit status instead of exiting.
    ///
    /// Fatal errors are written to the environment's console as one line starting with `rederive:`.
    public static func execute(_ arguments: [String], in environment: CommandEnvironment) async -> Int32 {
        await CommandEnvironment.$current.withValue(environment) {
            let console = environment.console
            do {
                var command = try await asyncParseAsRoot(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
                return ExitStatus.success
            } catch let failure as CommandFailure {
                return failure.status
            } catch let error as RederiveError {
                console.errorLine("rederive: \(error)")
                return ExitStatus.failure
            } catch {
                let code = exitCode(for: error)
                let message = fullMessage(for: error)
                if code == .success {
                    if !message.isEmpty { console.line(message) }
                } else if !message.isEmpty {
                    console.errorLine(message.hasPrefix("Error:") || message.hasPrefix("Usage:") ? message : "rederive: \(message)")
                }
                return code.rawValue
            }
        }
    }
}
