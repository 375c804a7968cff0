import Foundation
import GRDB
import Rederive
import RederiveCLI
import RederiveSQLite
import RoomScan
import Testing

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

    @Test func listsDryRunsAndAppliesMigrationsRegisteredInCode() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let migrations: [SchemaMigration] = [
                .addColumn("add-room-name", table: "room_scans", column: .text("room_name", default: "unnamed")),
                .addIndex("index-room-name", table: "room_scans", columns: ["room_name"]),
            ]
            let listed = try await migrate(harness, ["--list"], migrations: migrations)
            #expect(listed.output.contains("add-room-name    pending"))

            let preview = try await migrate(harness, ["--dry-run"], migrations: migrations)
            #expect(preview.output.contains("dry run: 2 migrations apply cleanly"))
            let columns = try await harness.connection().read { db in try db.columns(in: "room_scans").map(\.name) }
            #expect(!columns.contains("room_name"))

            let applied = try await migrate(harness, ["--to", "add-room-name"], migrations: migrations)
            #expect(applied.output.contains("applied 1 migrations: add-room-name"))
            let names = try await harness.connection().read { db in try String.fetchAll(db, sql: "SELECT DISTINCT room_name FROM room_scans") }
            #expect(names == ["unnamed"])
            let rest = try await migrate(harness, [], migrations: migrations)
            #expect(rest.output.contains("applied 1 migrations: index-room-name"))
            let done = try await migrate(harness, [], migrations: migrations)
            #expect(done.output.contains("the schema is up to date"))
        }
    }

    @Test func aFailingMigrationIsOneLineNamingIt() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("run", "--progress", "none")
            let outcome = try await migrate(harness, [], migrations: [.renameColumn("rename-missing", table: "room_scans", from: "nope", to: "x")])
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("schema migration \"rename-missing\" failed and was rolled back"))
            #expect(outcome.errors.split(separator: "\n").count == 1)
        }
    }
}
