import Foundation
import GRDB
import Rederive
import RederiveSQLite
import Testing

@Suite("Schema migrations")
struct SchemaMigrationTests {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the data is not what this migration expects" }
    }

    func columns(_ path: String, _ table: String) throws -> [String] {
        try appConnection(path).read { db in try db.columns(in: table).map(\.name) }
    }

    @Test func eachKindOfStepAppliesOnceInOrderAndIsRecorded() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try appExecute(path, "INSERT INTO notes (body) VALUES ('alpha beta'), ('gamma')")
            let migrator = try SchemaMigrator([
                .addColumn("add-words", table: "notes", column: .integer("words", default: 0)),
                .custom("count-words") { db in
                    // Reads the old data before changing it.
                    for row in try Row.fetchAll(db, sql: "SELECT id, body FROM notes") {
                        let body: String = row["body"]
                        try db.execute(
                            sql: "UPDATE notes SET words = ? WHERE id = ?",
                            arguments: [body.split(separator: " ").count, row["id"] as Int64]
                        )
                    }
                },
                .renameColumn("rename-body", table: "notes", from: "body", to: "text"),
                .addIndex("index-words", table: "notes", columns: ["words"]),
            ])
            let store = try SQLiteStore(path: path)
            let outcome = try await store.migrate(migrator)
            #expect(outcome.applied == ["add-words", "count-words", "rename-body", "index-words"])
            #expect(try columns(path, "notes") == ["id", "text", "words"])
            #expect(try Inspection(path: path).count("SELECT sum(words) FROM notes") == 3)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM sqlite_master WHERE name = 'index-words'") == 1)

            let states = try await store.migrationStates(migrator)
            #expect(states.allSatisfy { $0.isApplied && $0.rederiveVersion == RederiveVersion.current })
            let again = try await store.migrate(migrator)
            #expect(again.applied.isEmpty)
        }
    }

    @Test func aFailingMigrationRollsBackCompletelyAndStopsTheRest() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try appExecute(path, "INSERT INTO notes (body) VALUES ('kept')")
            let migrator = try SchemaMigrator([
                .addColumn("add-words", table: "notes", column: .integer("words", default: 0)),
                .custom("half-done") { db in
                    try db.execute(sql: "UPDATE notes SET body = 'changed'")
                    try db.execute(sql: "ALTER TABLE notes ADD COLUMN extra TEXT")
                    throw Refusal()
                },
                .addIndex("never", table: "notes", columns: ["body"]),
            ])
            let store = try SQLiteStore(path: path)
            let error = await #expect(throws: RederiveError.self) { try await store.migrate(migrator) }
            #expect(error?.message.contains("schema migration \"half-done\" failed and was rolled back") == true)
            #expect(error.map { "\($0)" }?.contains("the data is not what this migration expects") == true)
            #expect(try columns(path, "notes") == ["id", "body", "words"])
            #expect(try Inspection(path: path).count("SELECT count(*) FROM notes WHERE body = 'kept'") == 1)
            let states = try await store.migrationStates(migrator)
            #expect(states.map(\.isApplied) == [true, false, false])
        }
    }

    @Test func aDryRunAppliesNothingAndATargetStopsThere() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            let migrator = try SchemaMigrator([
                .addColumn("one", table: "notes", column: .integer("a")),
                .addColumn("two", table: "notes", column: .integer("b")),
            ])
            let store = try SQLiteStore(path: path)
            let preview = try await store.migrate(migrator, dryRun: true)
            #expect(preview.applied == ["one", "two"])
            #expect(try columns(path, "notes") == ["id", "body"])
            #expect(try await store.migrationStates(migrator).allSatisfy { !$0.isApplied })

            #expect(try await store.migrate(migrator, to: "one").applied == ["one"])
            #expect(try columns(path, "notes") == ["id", "body", "a"])
            await #expect(throws: RederiveError.self) { try await store.migrate(migrator, to: "three") }
        }
    }

    @Test func duplicateIdentifiersAreRejected() {
        #expect(throws: RederiveError.self) {
            _ = try SchemaMigrator([.addIndex("same", table: "t", columns: ["a"]), .addIndex("same", table: "t", columns: ["b"])])
        }
    }

    @Test func aMigrationCanInvalidateProcessorsItAffects() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(4), into: path)
            _ = try await run(test.pipeline, at: path)
            let migrator = try SchemaMigrator([
                .custom("rescale", invalidates: ["total"]) { db in
                    try db.execute(sql: "UPDATE items_derived SET total = total * 10")
                },
            ])
            let store = try SQLiteStore(path: path)
            try await store.migrate(migrator)
            let status = try await store.status(of: test.pipeline)
            #expect(status.map(\.stale) == [4, 0])
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts.derived == 4)
            #expect(try Inspection(path: path).value("total", key: "k1", as: Double.self) == 4)
        }
    }

    @Test func theLaunchCallMigratesDerivesAndIsCheapTheSecondTime() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(6), into: path)
            let migrator = try SchemaMigrator([.addIndex("index-key", table: "items", columns: ["key"], unique: true)])
            let store = try SQLiteStore(path: path)
            let progress = InMemoryProgress()
            let first = try await store.bringUpToDate(pipelines: [test.pipeline], migrator: migrator, progress: progress)
            #expect(first.migrations == ["index-key"])
            let run = try #require(first.run)
            #expect(run.counts == RunCounts(derived: 6))
            // The caller's reporter follows that run from its start to its end.
            let events = progress.events
            #expect(events.first == .started(runID: run.runID, total: 6))
            #expect(events.last == .finished(run))
            let done = events.compactMap { if case .advanced(let step) = $0, step.runID == run.runID { step.done } else { nil } }
            #expect(done.last == 6 && done == done.sorted(), "\(done)")
            #expect(events.count == done.count + 2)

            let second = try await store.bringUpToDate(pipelines: [test.pipeline], migrator: migrator, progress: progress)
            #expect(second.migrations.isEmpty)
            #expect(second.run == nil)
            #expect(progress.events.count == events.count, "nothing to derive, nothing reported")
            #expect(try await store.runs(limit: nil).count == 1)
        }
    }
}
