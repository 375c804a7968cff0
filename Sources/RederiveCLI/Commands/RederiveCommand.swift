import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite
import Synchronization

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
///
/// An app with a command line of its own mounts the commands under it instead, as
/// ``subcommands`` of a command of its own, and registers its pipelines once at start-up with
/// ``bootstrap(pipelines:samples:migrations:stores:mountedAt:)``:
///
/// ```swift
/// struct Data: AsyncParsableCommand {
///     static let configuration = CommandConfiguration(
///         abstract: "Derived data.", subcommands: RederiveCommand.subcommands
///     )
/// }
///
/// @main enum Main {
///     static func main() async throws {
///         try RederiveCommand.bootstrap(pipelines: [MyApp.notesPipeline], mountedAt: ["data"])
///         await MyApp.main()   // `myapp data run --parallel 8`
///     }
/// }
/// ```
///
/// An app whose records live in a store of its own passes a ``StoreOpener`` for its URL scheme in
/// `stores`, beside rederive's SQLite and PostgreSQL openers: `--db myscheme://…` then opens it.
///
/// Mounted commands never exit the process: they return, or throw ArgumentParser's `ExitCode` with
/// one of the ``ExitStatus`` values, or an error the app's command line reports.
public struct RederiveCommand: AsyncParsableCommand {
    /// Every rederive command, to mount under a command of an app's own.
    public static let subcommands: [any ParsableCommand.Type] = [
        DemoCommand.self,
        ImportCommand.self,
        ExportCommand.self,
        RunCommand.self,
        WatchCommand.self,
        PauseCommand.self,
        ResumeCommand.self,
        CancelCommand.self,
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
        ProjectionsCommand.self,
        ReportCommand.self,
        MigrateCommand.self,
        WorkerCommand.self,
    ]

    /// The `rederive` command and its subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "rederive",
        abstract: "Keep derived columns up to date with the payloads they come from.",
        discussion: """
            Processors registered in code own derived columns and declare a logic version. Every record \
            carries a stamp per processor; `rederive run` re-derives exactly the records whose stamp is \
            missing, from another version, or from a payload that changed since.
            """,
        version: VersionText.text,
        subcommands: subcommands
    )

    /// A command as ArgumentParser makes it before parsing.
    public init() {}

    /// Runs the command line with the process's arguments and exits with the command's status: the
    /// `main` of a `rederive` executable of the app's own. `stores` open the app's own URL schemes,
    /// beside rederive's (and replace them for a scheme they share).
    public static func main(
        pipelines: [Pipeline], samples: [SampleSource] = [], migrations: [SchemaMigration] = [], stores: [any StoreOpener] = []
    ) async {
        // First of all: a signal from now on never ends the process by itself, but with 130 or 143.
        ProcessSignals.takeOver()
        AllocatorTuning.apply()
        let environment: CommandEnvironment
        do {
            environment = try processEnvironment(
                pipelines: pipelines, samples: samples, migrations: migrations, stores: stores, mountedAt: []
            )
        } catch {
            Console.standard.errorLine("rederive: \((error as? RederiveError)?.message ?? "\(error)")")
            Foundation.exit(ExitStatus.failure)
        }
        Foundation.exit(await execute(Array(CommandLine.arguments.dropFirst()), in: environment))
    }

    /// Registers the app's pipelines, samples, migrations and store openers for rederive's commands
    /// mounted under the app's own command line, for the rest of the process. `mountedAt` names the
    /// subcommands that lead to them (`["data"]` for `myapp data run`). Throws when the pipelines or
    /// migrations are invalid.
    public static func bootstrap(
        pipelines: [Pipeline], samples: [SampleSource] = [], migrations: [SchemaMigration] = [], stores: [any StoreOpener] = [],
        mountedAt: [String]
    ) throws {
        let environment = try processEnvironment(
            pipelines: pipelines, samples: samples, migrations: migrations, stores: stores, mountedAt: mountedAt
        )
        CommandEnvironment.bootstrapped.withLock { $0 = environment }
    }

    private static func processEnvironment(
        pipelines: [Pipeline], samples: [SampleSource], migrations: [SchemaMigration], stores: [any StoreOpener], mountedAt: [String]
    ) throws -> CommandEnvironment {
        let registry = try Registry(pipelines)
        let migrator = try SchemaMigrator(migrations)
        return CommandEnvironment(
            registry: registry,
            samples: samples,
            migrator: migrations.isEmpty ? nil : migrator,
            stores: StoreFactory.standard.adding(stores),
            console: .standard,
            variables: ProcessInfo.processInfo.environment,
            invocation: ([Invocation.current] + mountedAt).joined(separator: " "),
            commandPath: mountedAt
        )
    }

    /// Parses and runs one command line, and returns its exit status instead of exiting.
    ///
    /// Fatal errors are written to the environment's console as one line starting with `rederive:`.
    /// Every store the command opened is closed before this returns, whatever the command's end.
    public static func execute(_ arguments: [String], in environment: CommandEnvironment) async -> Int32 {
        let opened = OpenedStores()
        let status = await OpenedStores.$current.withValue(opened) {
            await parseAndRun(arguments, in: environment)
        }
        await opened.closeAll()
        return status
    }

    private static func parseAndRun(_ arguments: [String], in environment: CommandEnvironment) async -> Int32 {
        await CommandEnvironment.$scoped.withValue(environment) {
            let console = environment.console
            let commands = subcommands.map { $0.configuration.commandName ?? "\($0)".lowercased() }
            if let unknown = UnknownCommand.check(arguments, commands: commands) {
                console.errorLine("rederive: \(unknown)")
                return ExitStatus.usage
            }
            do {
                var command = try await asyncParseAsRoot(arguments)
                if command is any StopsCleanlyOnSignal {
                    // It registers its own handling once its store is open: a signal before waits for it.
                    ProcessSignals.deferUntilResponding()
                }
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
                return ExitStatus.success
            } catch let error as RederiveError {
                console.errorLine("rederive: \(error)")
                return error.code == .outage ? ExitStatus.unavailable : ExitStatus.failure
            } catch is CancellationError {
                // Ended by a signal, whose handler said what happens to the work in flight.
                return ReceivedSignal.exitStatus
            } catch let error where SQLiteProblem(error) != nil {
                console.errorLine("rederive: \(SQLiteProblem(error)?.description ?? "")")
                return ExitStatus.failure
            } catch {
                let code = exitCode(for: error)
                let message = HelpExample.appending(
                    to: fullMessage(for: error), arguments: arguments, invocation: environment.invocation
                )
                if code == .success {
                    if !message.isEmpty { console.line(message) }
                } else if !message.isEmpty {
                    console.errorLine(Self.prefixed(message))
                }
                return code.rawValue
            }
        }
    }

    /// An error from ArgumentParser with rederive's one prefix: its `Error: ` becomes `rederive: `; a
    /// usage text stays as it is.
    static func prefixed(_ message: String) -> String {
        if message.hasPrefix("Usage:") { return message }
        if message.hasPrefix("Error: ") { return "rederive: " + message.dropFirst("Error: ".count) }
        return "rederive: \(message)"
    }
}
