import Foundation
import GRDB
import Rederive
import RederiveCLI
import RoomScan
import Synchronization
import Testing

/// An app's own store scheme: `shelf://NAME` is the SQLite file `NAME.sqlite` in the app's shelf
/// directory. It opens real SQLite stores, through rederive's own opener, and notes each mode a
/// command asked for.
final class ShelfOpener: StoreOpener {
    let directory: URL
    let requests = Mutex<[StoreRequest.Mode]>([])

    init(directory: URL) {
        self.directory = directory
    }

    var schemes: [String] { ["shelf"] }

    func file(of location: String) -> String {
        directory.appendingPathComponent(String(location.dropFirst("shelf://".count)) + ".sqlite").path
    }

    func name(of location: String, variables: [String: String]) -> String { "shelf \(location.dropFirst("shelf://".count))" }

    func argument(for location: String) -> String { location }

    var sharesRunsAcrossProcesses: Bool { false }

    func exposedSecretWarning(in location: String) -> String? { nil }

    func open(_ request: StoreRequest) async throws -> any CommandStore {
        requests.withLock { $0.append(request.mode) }
        let file = StoreRequest(
            location: file(of: request.location), mode: request.mode, pipelines: request.pipelines,
            busyTimeout: request.busyTimeout, variables: request.variables, logger: request.logger, warn: request.warn
        )
        return try await SQLiteOpener().open(file)
    }
}

/// `--db` names a store by its URL scheme, through the one factory: rederive's SQLite and
/// PostgreSQL openers and those an app registers.
@Suite struct StoreFactoryTests {
    /// Runs a command line with `stores` as the factory.
    func rederive(_ arguments: [String], stores: StoreFactory) async throws -> CommandHarness.Outcome {
        let captured = CapturedConsole()
        let environment = CommandEnvironment(
            registry: try Registry([RoomScan.pipeline]), samples: [CommandHarness.samples], stores: stores, console: captured.console
        )
        let status = await RederiveCommand.execute(arguments, in: environment)
        return CommandHarness.Outcome(status: status, output: captured.standardOutput, errors: captured.standardError)
    }

    @Test func anAppsStoreSchemeIsOpenedByEveryCommandThroughItsOpener() async throws {
        try await CommandHarness.withHarness { harness in
            let shelf = ShelfOpener(directory: harness.directory)
            let stores = StoreFactory.standard.adding([shelf])
            let generated = try await rederive(["generate", "--db", "shelf://rooms", "--count", "6", "--seed", "2"], stores: stores)
            #expect(generated.status == 0, "\(generated.errors)")
            let run = try await rederive(["run", "--db", "shelf://rooms", "--progress", "none"], stores: stores)
            #expect(run.status == 0, "\(run.errors)")
            let status = try await rederive(["status", "--db", "shelf://rooms"], stores: stores)
            #expect(status.status == 0, "\(status.errors)")
            #expect(status.output.contains("shelf rooms: 6 records"), "\(status.output)")
            #expect(shelf.requests.withLock { $0 } == [.preparing(creating: true), .preparing(creating: false), .reading(allowingUnprepared: false)])

            // The records went to the shelf's file, and nowhere else.
            let file = shelf.file(of: "shelf://rooms")
            let derived = try await DatabaseQueue(path: file).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans_derived WHERE floor_area_sqm IS NOT NULL")
            }
            #expect(derived == 6)
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).sorted().filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == ["rooms.sqlite"])
            // A command that works on SQLite files only refuses the app's store, naming it.
            let backup = try await rederive(["backup", "--db", "shelf://rooms", "--to", harness.directory.appendingPathComponent("copy.sqlite").path], stores: stores)
            #expect(backup.status == 1)
            #expect(backup.errors == "rederive: rederive backup works on SQLite databases only, not on shelf rooms; back up PostgreSQL with pg_dump\n")
        }
    }

    /// What differs between stores is asked of the opener and the store, not of their types: the
    /// shelf is derived by one process at a time and its store applies schema migrations.
    @Test func commandsAskTheAppsOpenerAndStoreWhatTheyCanDo() async throws {
        try await CommandHarness.withHarness { harness in
            let stores = StoreFactory.standard.adding([ShelfOpener(directory: harness.directory)])
            _ = try await rederive(["generate", "--db", "shelf://rooms", "--count", "2"], stores: stores)
            let join = try await rederive(["run", "--db", "shelf://rooms", "--workers-only"], stores: stores)
            #expect(join.status == 1)
            #expect(join.errors == "rederive: rederive run --workers-only joins a run that other processes share, and shelf rooms is derived by one process at a time (PostgreSQL databases are shared)\n")
            let migrations = try await rederive(["migrate", "--db", "shelf://rooms", "--list"], stores: stores)
            #expect(migrations.status == 0, "\(migrations.errors)")
            #expect(migrations.errors.isEmpty, "\(migrations.errors)")
        }
    }

    @Test func anUnknownSchemeIsRefusedWithTheKnownOnesTheAppsIncluded() async throws {
        try await CommandHarness.withHarness { harness in
            let stores = StoreFactory.standard.adding([ShelfOpener(directory: harness.directory)])
            let outcome = try await rederive(["status", "--db", "mysql://app:secret@db.example/rooms"], stores: stores)
            #expect(outcome.status == 64)
            #expect(outcome.errors.contains(
                "--db mysql://app:***@db.example/rooms is a mysql:// URL, which no rederive store reads; give a SQLite file path, or a postgres://, postgresql:// or shelf:// URL (known schemes: sqlite, postgres, postgresql, shelf)"
            ), "\(outcome.errors)")
            #expect(!outcome.errors.contains("secret"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).isEmpty)
        }
    }

    @Test func aSQLiteURLNamesTheFileAsAPathDoes() async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.databasePath
            let generated = try await rederive(["generate", "--db", "sqlite://" + path, "--count", "3"], stores: .standard)
            #expect(generated.status == 0, "\(generated.errors)")
            #expect(FileManager.default.fileExists(atPath: path))
            let status = try await rederive(["status", "--db", "sqlite:" + path], stores: .standard)
            #expect(status.status == 0, "\(status.errors)")
            #expect(status.output.contains("\(path): 3 records"), "\(status.output)")
        }
    }

    @Test(arguments: [
        ("rooms.sqlite", "sqlite"), ("/var/db/rooms.sqlite", "sqlite"), ("sqlite:rooms.sqlite", "sqlite"),
        ("SQLite:///var/db/rooms.sqlite", "sqlite"), ("notes:2024.sqlite", "sqlite"), ("./a://b", "sqlite"),
        ("postgres://db/rooms", "postgres"), ("PostgreSQL://db/rooms", "postgresql"),
    ])
    func aLocationLeadsToTheOpenerOfItsScheme(location: String, scheme: String) throws {
        let address = try StoreFactory.standard.address(of: location)
        #expect(address.scheme == scheme)
        #expect(address.opener.schemes.contains(scheme))
    }

    @Test func anAppsOpenerReplacesRederivesForASchemeTheyShare() throws {
        let shelf = ShelfOpener(directory: FileManager.default.temporaryDirectory)
        struct Replacement: StoreOpener {
            let shelf: ShelfOpener
            var schemes: [String] { ["postgres"] }
            func name(of location: String, variables: [String: String]) -> String { location }
            func argument(for location: String) -> String { location }
            var sharesRunsAcrossProcesses: Bool { false }
            func exposedSecretWarning(in location: String) -> String? { nil }
            func open(_ request: StoreRequest) async throws -> any CommandStore { try await shelf.open(request) }
        }
        let stores = StoreFactory.standard.adding([Replacement(shelf: shelf)])
        #expect(try stores.address(of: "postgres://db/rooms").opener is Replacement)
        #expect(try stores.address(of: "postgresql://db/rooms").opener is PostgresOpener)
        #expect(stores.schemes == ["sqlite", "postgres", "postgresql"])
    }
}
