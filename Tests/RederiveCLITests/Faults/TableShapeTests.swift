import Foundation
import GRDB
import Testing

/// Tables SQLite allows that an app may hand rederive: a key column holding numbers or blobs is read
/// as text by every command, and a table whose id is not its INTEGER PRIMARY KEY (the rowid) is
/// refused, in one line naming the column, before anything is written. Each command runs as the built
/// executable, so that a crash shows as a signal rather than taking the tests down.
@Suite("tables of every shape SQLite allows", .serialized, .timeLimit(.minutes(5)))
struct TableShapeTests {
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-shapes-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    /// An app's database, in rollback-journal mode, whose `room_scans` is made by `definition` and
    /// filled by `fill` from `source`, a table of 4 generated scans (`id`, `payload`).
    func appDatabase(in directory: URL, _ definition: String, fill: String) async throws -> String {
        let source = directory.appendingPathComponent("source.sqlite").path
        let generated = try await RederiveProcess.run(["generate", "--count", "4", "--db", source], in: directory)
        #expect(generated.status == 0, "\(generated.errors)")
        let path = directory.appendingPathComponent("app.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: definition)
            try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [source])
            try db.execute(sql: fill)
            try db.execute(sql: "DETACH DATABASE source")
        }
        try queue.close()
        try FileManager.default.removeItem(atPath: source)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: source + suffix) }
        return path
    }

    /// Key columns holding each storage class but text, with the key of record 3 as commands show it.
    static let keyShapes: [(declaration: String, value: String, shown: String)] = [
        ("scan_id INTEGER", "s.id * 10", "30"),
        ("scan_id REAL", "s.id + 0.5", "3.5"),
        ("scan_id", "CAST('scan-' || s.id AS BLOB)", "scan-3"),
        ("scan_id BLOB", "CASE WHEN s.id = 3 THEN CAST('scave-3' AS BLOB) ELSE x'ff00fe' END", "scave-3"),
    ]

    @Test(arguments: keyShapes.indices)
    func everyCommandReadsAKeyOfAnyStorageClassAsText(shape: Int) async throws {
        let key = Self.keyShapes[shape]
        try await withDirectory { directory in
            let path = try await appDatabase(
                in: directory, "CREATE TABLE room_scans (id INTEGER PRIMARY KEY, \(key.declaration), payload BLOB)",
                fill: "INSERT INTO room_scans (id, scan_id, payload) SELECT s.id, \(key.value), s.payload FROM source.room_scans s"
            )
            let run = try await RederiveProcess.run(["run", "--progress", "none", "--db", path], in: directory)
            #expect(!run.signaled && run.status == 0, "\(run.status) \(run.errors)")
            // Record 3 fails, so that `failures` and `report` show its key.
            try await DatabaseQueue(path: path).write { db in
                try db.execute(sql: "UPDATE room_scans SET payload = x'00' WHERE id = 3")
            }
            let failing = try await RederiveProcess.run(["run", "--progress", "none", "--db", path], in: directory)
            #expect(!failing.signaled && failing.status == 3, "\(failing.status) \(failing.errors)")

            let commands: [(arguments: [String], statuses: Set<Int32>)] = [
                (["failures"], [0]),
                (["verify", "--all"], [0, 4]),
                (["report", directory.appendingPathComponent("report.html").path], [0]),
                (["run", "--dry-run", "--retry-failed"], [0, 3]),
                (["export", directory.appendingPathComponent("export").path], [0, 3]),
                (["invalidate", "--key", key.shown], [0]),
                (["rollback", "2"], [0]),
            ]
            for command in commands {
                let outcome = try await RederiveProcess.run(command.arguments + ["--db", path], in: directory)
                #expect(
                    !outcome.signaled && command.statuses.contains(outcome.status),
                    "\(command.arguments): \(outcome.signaled ? "signal" : "status") \(outcome.status) \(outcome.errors)"
                )
                if command.arguments == ["failures"] {
                    #expect(outcome.output.contains(key.shown), "\(outcome.output)")
                }
            }
        }
    }

    /// Tables whose `id` rederive cannot key records by: how the table is made, the id each record
    /// gets, and what the refusal says of it.
    static let idShapes: [(definition: String, id: String, says: String)] = [
        ("CREATE TABLE room_scans (id TEXT PRIMARY KEY, scan_id TEXT, payload BLOB)", "'r' || s.id", "it is declared TEXT PRIMARY KEY"),
        ("CREATE TABLE room_scans (id INT PRIMARY KEY, scan_id TEXT, payload BLOB)", "s.id", "it is declared INT PRIMARY KEY"),
        ("CREATE TABLE room_scans (id INTEGER, scan_id TEXT, payload BLOB)", "s.id", "it is declared INTEGER and not the primary key"),
        (
            "CREATE TABLE room_scans (id INTEGER, scan_id TEXT, payload BLOB, PRIMARY KEY (id, scan_id))", "s.id",
            "the primary key spans several columns"
        ),
        ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id TEXT, payload BLOB) WITHOUT ROWID", "s.id", "the table is WITHOUT ROWID"),
        ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY DESC, scan_id TEXT, payload BLOB)", "s.id", "it is not an alias of the rowid"),
    ]

    @Test(arguments: idShapes.indices)
    func aTableWhoseIdIsNotItsIntegerPrimaryKeyIsRefusedUnchanged(shape: Int) async throws {
        let table = Self.idShapes[shape]
        try await withDirectory { directory in
            let path = try await appDatabase(
                in: directory, table.definition,
                fill: "INSERT INTO room_scans (id, scan_id, payload) SELECT \(table.id), s.scan_id, s.payload FROM source.room_scans s"
            )
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for arguments in [["run", "--progress", "none"], ["run", "--create", "--progress", "none"], ["watch"]] {
                let outcome = try await RederiveProcess.run(arguments + ["--db", path], in: directory)
                OneLineError.expect(outcome, mentioning: ["table \"room_scans\": column \"id\" must be its INTEGER PRIMARY KEY", table.says])
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(arguments)")
                #expect(ReadOnlyFiles.journalMode(path) == "delete")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["app.sqlite"], "\(arguments)")
            }
        }
    }

    @Test func aViewIsRefusedUnchanged() async throws {
        try await withDirectory { directory in
            let path = try await appDatabase(
                in: directory,
                "CREATE TABLE scans (id INTEGER PRIMARY KEY, scan_id TEXT, payload BLOB); CREATE VIEW room_scans AS SELECT * FROM scans",
                fill: "INSERT INTO scans SELECT s.id, s.scan_id, s.payload FROM source.room_scans s"
            )
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for arguments in [["run", "--progress", "none"], ["run", "--create", "--progress", "none"], ["watch"]] {
                let outcome = try await RederiveProcess.run(arguments + ["--db", path], in: directory)
                OneLineError.expect(outcome, mentioning: ["\"room_scans\" is a view", "INTEGER PRIMARY KEY"])
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(arguments)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["app.sqlite"], "\(arguments)")
            }
        }
    }

    /// A database prepared before the rule, whose table was then made again with a text id: the
    /// commands that only read refuse it in the same line rather than decode a text id as a number.
    @Test func readingCommandsRefuseATextIdTheyFindInAPreparedDatabase() async throws {
        try await withDirectory { directory in
            let path = directory.appendingPathComponent("rooms.sqlite").path
            let generated = try await RederiveProcess.run(["generate", "--count", "3", "--db", path], in: directory)
            #expect(generated.status == 0, "\(generated.errors)")
            try await DatabaseQueue(path: path).writeWithoutTransaction { db in
                try db.execute(sql: """
                    ALTER TABLE room_scans RENAME TO old_scans;
                    CREATE TABLE room_scans (id TEXT PRIMARY KEY, scan_id TEXT, payload BLOB);
                    INSERT INTO room_scans SELECT 'r' || id, scan_id, payload FROM old_scans;
                    PRAGMA wal_checkpoint(TRUNCATE);
                    """)
            }
            for arguments in [["verify", "--all"], ["export", directory.appendingPathComponent("out").path], ["run", "--dry-run"], ["failures"]] {
                let outcome = try await RederiveProcess.run(arguments + ["--db", path], in: directory)
                OneLineError.expect(outcome, mentioning: ["column \"id\" must be its INTEGER PRIMARY KEY", "TEXT PRIMARY KEY"])
            }
        }
    }
}
