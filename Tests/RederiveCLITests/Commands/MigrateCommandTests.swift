import Foundation
import GRDB
import Rederive
import RederiveCLI
import RederiveSQLite
import RederiveTestSupport
import RoomScan
import Testing
#if PostgreSQL
import RederivePostgresTestSupport
#endif

@Suite("rederive migrate")
struct MigrateCommandTests {
    func migrate(_ harness: CommandHarness, _ arguments: [String], migrations: [SchemaMigration]) async throws -> CommandHarness.Outcome {
        let captured = CapturedConsole()
        let environment = CommandEnvironment(
            registry: try Registry([RoomScan.pipeline]),
            migrator: try SchemaMigrator(migrations),
            console: captured.console,
            variables: ["REDERIVE_DB": harness.databasePath]
        )
        let status = await RederiveCommand.execute(["migrate"] + arguments, in: environment)
        return CommandHarness.Outcome(status: status, output: captured.standardOutput, errors: captured.standardError)
    }

    @Test(arguments: TestStore.available)
    func listsDryRunsAndAppliesMigrationsRegisteredInCode(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let migrations: [SchemaMigration] = [
                .addColumn("add-room-name", table: "room_scans", column: .text("room_name", default: "unnamed")),
                .addIndex("index-room-name", table: "room_scans", columns: ["room_name"]),
            ]
            let listed = try await migrate(harness, ["--list"], migrations: migrations)
            #expect(listed.output.contains("add-room-name    pending"))

            let preview = try await migrate(harness, ["--dry-run"], migrations: migrations)
            #expect(preview.output.contains("dry run: 2 migrations apply cleanly"))
            // The column is not there: selecting it fails.
            await #expect(throws: (any Error).self) { try await harness.rows("SELECT room_name FROM room_scans") }

            let applied = try await migrate(harness, ["--to", "add-room-name"], migrations: migrations)
            #expect(applied.output.contains("applied 1 migration: add-room-name"))
            let names = try await harness.rows("SELECT DISTINCT room_name FROM room_scans")
            #expect(names == [["unnamed"]])
            let rest = try await migrate(harness, [], migrations: migrations)
            #expect(rest.output.contains("applied 1 migration: index-room-name"))
            let done = try await migrate(harness, [], migrations: migrations)
            #expect(done.output.contains("the schema is up to date"))
        }
    }

    @Test func listingAndDryRunsChangeNothingInADatabaseRederiveHasNotPrepared() async throws {
        try await CommandHarness.withHarness { harness in
            let queue = try GRDB.DatabaseQueue(path: harness.databasePath)
            try await queue.write { db in try db.execute(sql: "CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id TEXT UNIQUE, payload BLOB)") }
            try queue.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: harness.databasePath))
            let migrations: [SchemaMigration] = [
                .addColumn("add-room-name", table: "room_scans", column: .text("room_name", default: "unnamed"), invalidates: [.processor("floor_area", of: RoomScan.pipeline)]),
            ]
            let listed = try await migrate(harness, ["--list"], migrations: migrations)
            #expect(listed.status == 0, "\(listed.errors)")
            #expect(listed.output.contains("add-room-name  pending"), "\(listed.output)")
            let dryRun = try await migrate(harness, ["--dry-run"], migrations: migrations)
            #expect(dryRun.status == 0, "\(dryRun.errors)")
            #expect(dryRun.output.contains("dry run: 1 migration applies cleanly (rolled back): add-room-name"), "\(dryRun.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: harness.databasePath)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.directory.path) == ["rederive.sqlite"])
        }
    }

    @Test func migrateRefusesAMissingFile() async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await migrate(harness, [], migrations: [.sql("noop", "SELECT 1")])
            #expect(outcome.status == 1)
            #expect(outcome.errors == "rederive: no database at \(harness.databasePath) (create one with rederive import or rederive generate)\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).isEmpty)
        }
    }

    @Test(arguments: TestStore.available)
    func aFailingMigrationIsOneLineNamingIt(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("run", "--create", "--progress", "none")
            let outcome = try await migrate(harness, [], migrations: [.renameColumn("rename-missing", table: "room_scans", from: "nope", to: "x")])
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("schema migration \"rename-missing\" failed and was rolled back"))
            #expect(outcome.errors.split(separator: "\n").count == 1)
        }
    }

    @Test(arguments: TestStore.available)
    func migrationsInvalidateWhatTheyAskInTheSameTransaction(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let migrations: [SchemaMigration] = [
                .sql("halve-areas", "UPDATE room_scans_derived SET floor_area_sqm = floor_area_sqm / 2", invalidates: [.processor("floor_area", of: RoomScan.pipeline)]),
            ]
            let applied = try await migrate(harness, [], migrations: migrations)
            #expect(applied.output.contains("applied 1 migration: halve-areas"), "\(applied.errors)")
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.output.contains("13 derived"), "\(run.output)")
            #expect(try await harness.rederive("verify").status == ExitStatus.success)
            let listed = try await migrate(harness, ["--list"], migrations: migrations)
            #expect(listed.output.contains("halve-areas  applied"), "\(listed.output)")
        }
    }

    @Test(arguments: TestStore.available)
    func oneBackfillRunsOnEveryStore(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let migrations: [SchemaMigration] = [
                .addColumn("add-room-name", table: "room_scans", column: .text("room_name")),
                // Reads each scan's identifier and writes a name made of it, as bound values.
                .backfill("name-rooms") { db in
                    for row in try db.rows("SELECT id, scan_id FROM room_scans") {
                        let name = "room '\(try row.text("scan_id") ?? "?")'"
                        try db.execute("UPDATE room_scans SET room_name = \(name) WHERE id = \(try row.integer("id"))")
                    }
                },
            ]
            let applied = try await migrate(harness, [], migrations: migrations)
            #expect(applied.output.contains("applied 2 migrations: add-room-name, name-rooms"), "\(applied.errors)")
            let named = try await harness.rows("SELECT count(*) FROM room_scans WHERE room_name = 'room ''' || scan_id || ''''")
            #expect(named == [["13"]])
        }
    }
}

#if PostgreSQL
@Suite("rederive migrate on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason))
struct PostgresMigrateCommandTests {
    @Test func aPendingCustomStepStopsTheCommandBeforeAnythingIsApplied() async throws {
        try await TestStore.postgres.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let migrations: [SchemaMigration] = [
                .addColumn("add-room-name", table: "room_scans", column: .text("room_name", default: "unnamed")),
                .custom("split-names") { _ in },
            ]
            let outcome = try await MigrateCommandTests().migrate(harness, [], migrations: migrations)
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("schema migration \"split-names\" is a custom step"), "\(outcome.errors)")
            #expect(outcome.errors.split(separator: "\n").count == 1)
            await #expect(throws: (any Error).self) { try await harness.rows("SELECT room_name FROM room_scans") }
            let applied = try await MigrateCommandTests().migrate(harness, ["--to", "add-room-name"], migrations: migrations)
            #expect(applied.output.contains("applied 1 migration: add-room-name"), "\(applied.errors)")
        }
    }

    @Test func twoHostsMigratingAtOnceApplyEachMigrationOnce() async throws {
        try await TestStore.postgres.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            // Each migration counts its application, slowly enough for the other host to find it pending.
            let migrations: [SchemaMigration] = [.sql("create-visits", "CREATE TABLE visits (n integer NOT NULL)", "INSERT INTO visits VALUES (0)")]
                + (1...3).map { .sql("visit-\($0)", "SELECT pg_sleep(0.2)", "UPDATE visits SET n = n + 1") }
            async let one = MigrateCommandTests().migrate(harness, [], migrations: migrations)
            async let other = MigrateCommandTests().migrate(harness, [], migrations: migrations)
            let outcomes = try await [one, other]
            #expect(outcomes.map(\.status) == [0, 0], "\(outcomes.map(\.errors))")
            // Each says "applied 2 migrations: create-visits, visit-1" or "the schema is up to date".
            let applied = outcomes.flatMap { outcome in
                outcome.output.split(separator: ": ", maxSplits: 1).dropFirst()
                    .flatMap { $0.trimmingCharacters(in: .newlines).components(separatedBy: ", ") }
            }
            #expect(applied.sorted() == ["create-visits", "visit-1", "visit-2", "visit-3"], "\(outcomes.map(\.output))")
            #expect(try await harness.rows("SELECT n FROM visits") == [["3"]])
            #expect(try await harness.rows("SELECT count(*) FROM rederive_schema_migrations") == [["4"]])
        }
    }
}
#endif
