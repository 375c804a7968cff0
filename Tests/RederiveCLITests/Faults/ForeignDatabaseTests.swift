import Foundation
import GRDB
import RederiveTestSupport
import Testing

/// Commands leave a database that rederive has not prepared as they found it: one that only reads
/// says so in one line, one that prepares it does so all at once or not at all.
@Suite("commands on a database rederive has not prepared", .timeLimit(.minutes(5)))
struct ForeignDatabaseTests {
    /// A SQLite file of another program's, in rollback-journal mode.
    func customers(in harness: CommandHarness) throws -> String {
        let path = harness.directory.appendingPathComponent("customers.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada')")
        }
        try queue.close()
        return path
    }

    /// The names of the files in the harness's directory.
    func files(_ harness: CommandHarness) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).sorted()
    }

    static let readers: [[String]] = [
        ["status"], ["failures"], ["history"], ["verify"], ["report", "report.html"], ["run", "--dry-run"],
    ]

    @Test(arguments: readers)
    func aReadingCommandSaysItIsNotARederiveDatabaseAndChangesNothing(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let path = try customers(in: harness)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let output = harness.directory.appendingPathComponent("report.html").path
            let outcome = try await harness.rederive(arguments.map { $0 == "report.html" ? output : $0 } + ["--db", path])
            #expect(outcome.status == 1)
            #expect(
                outcome.errors
                    == "rederive: \(path) is not a rederive database: it has no rederive tables (prepare it with rederive import, or rederive run --create)\n"
            )
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(ReadOnlyFiles.journalMode(path) == "delete")
            #expect(try files(harness) == ["customers.sqlite"])
        }
    }

    static let changers: [[String]] = [["invalidate"], ["reset", "--yes"], ["rollback", "1"]]

    @Test(arguments: changers)
    func aCommandThatChangesRederiveStateRefusesIt(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let path = try customers(in: harness)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let outcome = try await harness.rederive(arguments + ["--db", path])
            #expect(outcome.status == 1)
            #expect(outcome.errors.hasPrefix("rederive: \(path) is not a rederive database"), "\(outcome.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try files(harness) == ["customers.sqlite"])
        }
    }

    @Test(arguments: [["run", "--progress", "none"], ["generate", "--count", "2"]])
    func aPreparationThatFailsLeavesTheFileByteForByte(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("app.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in try db.execute(sql: "CREATE TABLE room_scans (id INTEGER PRIMARY KEY, key TEXT UNIQUE, notes TEXT)") }
            try queue.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let outcome = try await harness.rederive(arguments + ["--db", path])
            #expect(outcome.status == 1)
            #expect(outcome.errors == "rederive: table \"room_scans\" has no column \"payload\", which pipeline \"roomscan\" reads\n")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(ReadOnlyFiles.journalMode(path) == "delete")
            #expect(try files(harness) == ["app.sqlite"])
        }
    }

    /// `run` and `watch` on another program's database, given by mistake: nothing in it is rederive's
    /// or the pipeline's, so they refuse it, naming the way to prepare it, and change nothing.
    @Test(arguments: [["run", "--progress", "none"], ["watch"]])
    func runAndWatchRefuseADatabaseWithNoneOfThePipelinesTablesByteForByte(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let path = try customers(in: harness)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let outcome = try await harness.rederive(arguments + ["--db", path])
            #expect(outcome.status == 1)
            #expect(
                outcome.errors
                    == "rederive: \(path) is not a rederive database: it has neither rederive's tables nor a table \"room_scans\"; nothing was changed (to prepare it for rederive, use rederive import or rederive generate, or run with --create)\n"
            )
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(ReadOnlyFiles.journalMode(path) == "delete")
            #expect(try files(harness) == ["customers.sqlite"])
        }
    }

    /// An app's database that has the pipeline's own table is what rederive is for: `run` prepares it
    /// without being asked to.
    @Test func runPreparesAnAppDatabaseThatHasThePipelinesTable() async throws {
        try await CommandHarness.withHarness { harness in
            let path = try customers(in: harness)
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: "CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id TEXT UNIQUE, payload BLOB)")
            }
            try queue.close()
            let run = try await harness.rederive("run", "--progress", "none", "--db", path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(ReadOnlyFiles.journalMode(path) == "wal")
            #expect(try await harness.rederive("status", "--db", path).status == 0)
        }
    }

    @Test func runWithCreatePreparesAnAppDatabaseAtOnceAndInWALMode() async throws {
        try await CommandHarness.withHarness { harness in
            let path = try customers(in: harness)
            let run = try await harness.rederive("run", "--create", "--progress", "none", "--db", path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(ReadOnlyFiles.journalMode(path) == "wal")
            let status = try await harness.rederive("status", "--db", path)
            #expect(status.status == 0, "\(status.errors)")
            #expect(status.output.hasPrefix("\(path): 0 records"))
            let tables = try await DatabaseQueue(path: path).read { db in try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
            #expect(tables.isSuperset(of: ["customers", "room_scans", "rederive_runs", "rederive_stamps", "grdb_migrations"]))
        }
    }

    /// A copy of the database an older rederive wrote, kept with the RoomScan tests.
    func olderDatabase(in harness: CommandHarness) throws -> String {
        let path = harness.directory.appendingPathComponent("v3.sqlite").path
        try FileManager.default.copyItem(
            atPath: RealExports.directory.appendingPathComponent("databases/rederive-v3.sqlite").path, toPath: path
        )
        return path
    }

    @Test func aReadingCommandOnAnOlderDatabaseAsksForAnUpgradeAndAWritingOneUpgradesIt() async throws {
        try await CommandHarness.withHarness { harness in
            let path = try olderDatabase(in: harness)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let status = try await harness.rederive("status", "--db", path)
            #expect(status.status == 1)
            #expect(
                status.errors
                    == "rederive: \(path) was prepared by an older rederive; reading changes nothing, so upgrade it first with rederive run or rederive migrate\n"
            )
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

            let run = try await harness.rederive("run", "--progress", "none", "--db", path)
            #expect(run.status == 3, "\(run.errors)")
            #expect(run.output.contains("completed: 6 records, ") && run.output.contains(": 5 derived, 0 unchanged, 1 failed"), "\(run.output)")
            let after = try await harness.rederive("status", "--db", path)
            #expect(after.status == 0, "\(after.errors)")
            #expect(after.output.hasPrefix("\(path): 6 records"))
        }
    }
}
