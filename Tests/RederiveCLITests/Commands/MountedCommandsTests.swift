import ArgumentParser
import Foundation
import GRDB
import Rederive
import RederiveCLI
import RoomScan
import Testing

/// An app's own command line, `myapp`, with rederive's commands under `myapp data`.
struct AppTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "myapp", subcommands: [DataCommands.self])

    struct DataCommands: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "data", abstract: "The app's derived data.", subcommands: RederiveCommand.subcommands
        )
    }
}

/// rederive's commands mounted under an app's own tool: parsed and run by the app's root command, with
/// the pipelines bootstrapped once, and never exiting the process.
@Suite("Commands mounted in an app's tool")
struct MountedCommandsTests {
    func run(_ arguments: [String]) async throws {
        var command = try AppTool.parseAsRoot(arguments)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    @Test func theAppsToolGeneratesRunsAndReportsThroughItsOwnCommand() async throws {
        try RederiveCommand.bootstrap(pipelines: [RoomScan.pipeline], samples: [CommandHarness.samples], mountedAt: ["data"])
        try await CommandHarness.withHarness { harness in
            let database = harness.databasePath
            try await run(["data", "generate", "--db", database, "--count", "40", "--seed", "3", "--corrupt", "0.1"])
            // Broken records end the run with the documented status, as an error the app's tool handles.
            await #expect(performing: {
                try await run(["data", "run", "--db", database, "--parallel", "2", "--progress", "none"])
            }, throws: { ($0 as? ExitCode)?.rawValue == ExitStatus.someFailed })
            let derived = try await harness.connection().read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans_derived WHERE floor_area_sqm IS NOT NULL")
            }
            let failed = try await harness.connection().read { db in
                try Int.fetchOne(db, sql: "SELECT count(DISTINCT record_id) FROM rederive_failures WHERE current = 1")
            }
            #expect((derived ?? 0) + (failed ?? 0) == 40)
            #expect((failed ?? 0) > 0)

            // A command that cannot do its job throws instead of exiting, and leaves no file behind.
            let missing = harness.directory.appendingPathComponent("typo.sqlite").path
            await #expect(performing: {
                try await run(["data", "status", "--db", missing])
            }, throws: { "\($0)".contains("no database at \(missing)") })
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    @Test func pipelinesThatDoNotRegisterAreRefusedAtBootstrap() throws {
        #expect(throws: RederiveError.self) {
            try RederiveCommand.bootstrap(pipelines: [RoomScan.pipeline, RoomScan.pipeline], mountedAt: ["data"])
        }
    }
}
