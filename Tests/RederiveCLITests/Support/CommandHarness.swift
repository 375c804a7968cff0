import Foundation
import GRDB
import Rederive
import RederiveCLI
import RederiveTestSupport
import RoomScan
import RoomScanGenerator

/// Runs `rederive` command lines in-process against one temporary database and keeps their output.
struct CommandHarness {
    let directory: URL
    /// A PostgreSQL URL the commands act on instead of the SQLite file in ``directory``.
    var serverDatabase: String?
    var databasePath: String { serverDatabase ?? directory.appendingPathComponent("rederive.sqlite").path }

    /// The outcome of one command line.
    struct Outcome {
        let status: Int32
        let output: String
        let errors: String
    }

    static func withHarness<T>(serverDatabase: String? = nil, _ body: (CommandHarness) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-cli-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(CommandHarness(directory: directory, serverDatabase: serverDatabase))
    }

    static let samples = SampleSource(
        pipeline: RoomScan.pipeline.name,
        make: { seed, index in RoomScanGenerator(seed: seed).scan(at: index) },
        makeBroken: { seed, index in RoomScanGenerator(seed: seed).brokenScan(at: index) }
    )

    @discardableResult
    func rederive(_ arguments: String...) async throws -> Outcome {
        try await rederive(arguments)
    }

    /// Runs a command in-process, with `$REDERIVE_DB` and `variables` as its environment.
    @discardableResult
    func rederive(_ arguments: [String], variables: [String: String] = [:]) async throws -> Outcome {
        let captured = CapturedConsole()
        let environment = CommandEnvironment(
            registry: try Registry([RoomScan.pipeline]),
            samples: [Self.samples],
            console: captured.console,
            variables: variables.merging(["REDERIVE_DB": databasePath]) { _, harness in harness }
        )
        let status = await RederiveCommand.execute(arguments, in: environment)
        return Outcome(status: status, output: captured.standardOutput, errors: captured.standardError)
    }

    /// A plain connection, as another program would open the database.
    func connection() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: databasePath, configuration: configuration)
    }

    func file(_ name: String, _ contents: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }
}

