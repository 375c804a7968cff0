import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

@Suite("Backup and restore", .timeLimit(.minutes(5)))
struct BackupTests {
    @Test func aBackupTakenWhileAnotherConnectionWritesIsAConsistentSnapshot() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(50), into: path)
            let started = Atomic<Bool>(false)
            let finished = Atomic<Bool>(false)
            // The app inserts one record per transaction until the backup is done, and once more after.
            // On a thread of its own: its writes block, and the cooperative pool serves every test of the process.
            let writer = Task {
                try await BlockingWork.run {
                    let app = try appConnection(path)
                    var index = 1_000
                    func insert() throws {
                        try app.write { db in
                            try db.execute(
                                sql: "INSERT INTO items (key, payload) VALUES (?, ?)",
                                arguments: ["w\(index)", Data(sampleJSON("w\(index)", [1]).utf8)]
                            )
                        }
                        index += 1
                    }
                    while !finished.load(ordering: .acquiring) {
                        try insert()
                        started.store(true, ordering: .releasing)
                    }
                    try insert()
                }
            }
            #expect(await eventually(within: 60) { started.load(ordering: .acquiring) })
            let before = try Inspection(path: path).count("SELECT count(*) FROM items")
            let backupPath = path + ".backup"
            let report = try await DatabaseBackup.create(of: path, to: backupPath)
            finished.store(true, ordering: .releasing)
            try await writer.value
            let after = try Inspection(path: path).count("SELECT count(*) FROM items")

            let items = try #require(report.tables["items"])
            #expect(items >= before)
            #expect(items < after)
            // The triggers write rederive_records in the app's transactions: a torn copy would disagree.
            let copy = Inspection(path: backupPath)
            #expect(try copy.count("SELECT count(*) FROM items") == items)
            #expect(try copy.count("SELECT count(*) FROM rederive_records WHERE source = 'items'") == items)
            #expect(try await appConnection(backupPath).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        }
    }

    @Test func aBackupNeverReplacesAnExistingFileUnlessAsked() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            let backupPath = path + ".backup"
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: backupPath))
            await #expect(throws: RederiveError.self) {
                try await DatabaseBackup.create(of: path, to: backupPath)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: backupPath)) == Data("keep me".utf8))
            _ = try await DatabaseBackup.create(of: path, to: backupPath, replacing: true)
            #expect(try Inspection(path: backupPath).count("SELECT count(*) FROM sqlite_master WHERE name = 'items'") == 1)
        }
    }

    @Test func restoringAVerifiedBackupBringsBackItsValues() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(10), into: path)
            _ = try await run(test.pipeline, at: path)
            let backupPath = path + ".backup"
            _ = try await DatabaseBackup.create(of: path, to: backupPath)

            try appExecute(path, "DELETE FROM items WHERE key IN ('k1', 'k2')")
            try appExecute(path, "UPDATE items_derived SET label_upper = 'damaged'")
            test.totalVersion = 2
            _ = try await run(test.pipeline, at: path)

            // The run let go of its store before it returned: restore finds the database free at once.
            let tables = try await DatabaseRestore.restore(backupPath, over: path)
            #expect(tables["items"] == 10)
            let inspect = Inspection(path: path)
            #expect(try inspect.count("SELECT count(*) FROM items") == 10)
            #expect(try inspect.value("label_upper", key: "k1", as: String.self) == "S1")
            #expect(try inspect.count("SELECT count(*) FROM rederive_runs") == 1)
            // The restored database works as a store again: version 2 is stale everywhere.
            let rerun = try await run(test.pipeline, at: path)
            #expect(rerun.pending == 10)
        }
    }

    @Test func restoreRefusesACorruptBackupAndLeavesTheDatabaseUntouched() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(200), into: path)
            _ = try await run(test.pipeline, at: path)
            let backupPath = path + ".backup"
            _ = try await DatabaseBackup.create(of: path, to: backupPath)
            // Overwrite pages in the middle of the backup with garbage.
            var bytes = try Data(contentsOf: URL(fileURLWithPath: backupPath))
            let pageSize = 4096
            #expect(bytes.count > 4 * pageSize)
            for offset in (2 * pageSize)..<(4 * pageSize) { bytes[offset] = UInt8(truncatingIfNeeded: offset * 7) }
            try bytes.write(to: URL(fileURLWithPath: backupPath))

            let before = try DatabaseFiles(path)
            await #expect(throws: RederiveError.self) {
                try await DatabaseRestore.restore(backupPath, over: path)
            }
            #expect(try DatabaseFiles(path) == before)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM items_derived") == 200)
        }
    }

    @Test func restoreRefusesWhileAnotherConnectionHasTheDatabaseOpen() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            try insertRecords(samples(5), into: path)
            let backupPath = path + ".backup"
            _ = try await DatabaseBackup.create(of: path, to: backupPath)
            try insertRecords([("late", sampleJSON("late", [1]))], into: path)

            let app = try appConnection(path)
            _ = try await app.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") }
            let error = await #expect(throws: RederiveError.self) {
                try await DatabaseRestore.restore(backupPath, over: path)
            }
            #expect(error?.message.contains("in use by another connection") == true)
            #expect(try await app.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 6)
            try app.close()

            _ = try await DatabaseRestore.restore(backupPath, over: path)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM items") == 5)
        }
    }

    @Test func runBackupsKeepOnlyTheNewest() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            let rotation = BackupRotation(database: path, keep: 2)
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            var made: [String] = []
            for minute in 0..<4 {
                made.append(try await rotation.backUp(now: start.addingTimeInterval(Double(minute) * 60)).path)
            }
            #expect(rotation.backups() == Array(made.suffix(2)))
        }
    }
}
