import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
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
                .custom("rescale", invalidates: [.processor("total", of: test.pipeline)]) { db in
                    try db.execute(sql: "UPDATE items_derived SET total = total * 10")
                },
            ])
            let store = try SQLiteStore(path: path)
            try await store.migrate(migrator)
            let status = try await store.status(of: test.pipeline)
            #expect(status.map(\.stale) == [4, 0])
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts.changed == 4)
            #expect(try Inspection(path: path).value("total", key: "k1", as: Double.self) == 4)
        }
    }

    @Test func aMigrationInvalidatesOnlyThePipelineItNames() async throws {
        try await withTemporaryDatabase { path in
            // Two pipelines, each with a processor named `score`, each with a failing record.
            let scans = scoringPipeline("scans", table: "scans", factor: 1)
            let notes = scoringPipeline("notes", table: "notes", factor: 1)
            let store = try SQLiteStore(path: path)
            try await store.prepare(scans)
            try await store.prepare(notes)
            let records = samples(3) + [("bad", sampleJSON("explode", [1]))]
            try insertRecords(records, into: path, table: "scans")
            try insertRecords(records, into: path, table: "notes")
            for pipeline in [scans, notes] {
                let summary = try await Runner(store: store, pipelines: [pipeline]).run()
                #expect(summary.counts == RunCounts(changed: 3, failed: 1), "\(summary)")
            }
            let notesBefore = try await store.status(of: notes)
            #expect(notesBefore.map(\.stale) == [0] && notesBefore.map(\.failed) == [1])

            let migrator = try SchemaMigrator([
                .sql("rescale-scans", "UPDATE scans_derived SET score = score * 10", invalidates: [.processor("score", of: scans)]),
            ])
            try await store.migrate(migrator)
            // Every scan is stale again, its failure included; the notes' `score` is as it was.
            let scansAfter = try await store.status(of: scans)
            #expect(scansAfter.map(\.stale) == [4] && scansAfter.map(\.failed) == [0])
            #expect(try await store.status(of: notes) == notesBefore)
            #expect(try await store.failures(of: notes, filter: FailureFilter()).map(\.key) == ["bad"])
        }
    }

    @Test func aBackfillReadsAndWritesWithBoundValuesAndRollsBackWhenItThrows() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, weight REAL)")
            try appExecute(path, "INSERT INTO notes (body, weight) VALUES ('alpha beta', 1.5), ('it''s gamma', NULL)")
            let migrator = try SchemaMigrator([
                .addColumn("add-words", table: "notes", column: .integer("words", default: 0)),
                .backfill("count-words") { db in
                    for row in try db.rows("SELECT id, body, weight FROM notes ORDER BY id") {
                        let words = try row.text("body")?.split(separator: " ").count ?? 0
                        // A quote in the text is a bound value, never spliced into the statement.
                        try db.execute("""
                            UPDATE notes SET words = \(words), body = \(try row.text("body")), weight = \(try row.real("weight").map { $0 * 2 })
                            WHERE id = \(try row.integer("id"))
                            """)
                    }
                },
                .backfill("refuse") { db in
                    try db.execute("UPDATE notes SET words = 99")
                    throw Refusal()
                },
            ])
            let store = try SQLiteStore(path: path)
            let error = await #expect(throws: RederiveError.self) { try await store.migrate(migrator) }
            #expect(error?.message.contains("schema migration \"refuse\" failed and was rolled back") == true)
            #expect(try Inspection(path: path).count("SELECT sum(words) FROM notes") == 4)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM notes WHERE weight = 3.0 OR (id = 2 AND weight IS NULL)") == 2)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM notes WHERE body = 'it''s gamma'") == 1)
            #expect(try await store.migrationStates(migrator).map(\.isApplied) == [true, true, false])
        }
    }

    @Test func migrationsRecordedBeforeGRDBAppliedThemStayApplied() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, words INTEGER)")
            let store = try SQLiteStore(path: path)
            // As an earlier rederive recorded a migration: in rederive_schema_migrations alone.
            try appExecute(path, """
                INSERT INTO rederive_schema_migrations (id, applied_at, duration_ms, rederive_version)
                VALUES ('add-words', '2025-01-02T03:04:05.000Z', 12.5, '0.9.0')
                """)
            let migrator = try SchemaMigrator([
                .addColumn("add-words", table: "notes", column: .integer("words", default: 0)),
                .addColumn("add-stars", table: "notes", column: .integer("stars", default: 0)),
            ])
            let before = try await store.migrationStates(migrator)
            #expect(before.map(\.isApplied) == [true, false])
            #expect(before[0].rederiveVersion == "0.9.0" && before[0].duration == .milliseconds(12.5))
            #expect(try await store.migrate(migrator).applied == ["add-stars"])
            let after = try await store.migrationStates(migrator)
            #expect(after[0] == before[0])
            #expect(after[1].isApplied && after[1].rederiveVersion == RederiveVersion.current)
            // GRDB's migrator applied the new one, and keeps it under a name of rederive's.
            let identifiers = try await appConnection(path).read { db in
                try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations WHERE identifier LIKE 'rederive.schema:%'")
            }
            #expect(identifiers == ["rederive.schema:add-stars"])
        }
    }

    @Test func twoProcessesMigratingAtOnceApplyEachMigrationOnce() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, visits INTEGER NOT NULL DEFAULT 0)")
            try appExecute(path, "INSERT INTO notes (body) VALUES ('a')")
            // Each application counts a visit, slowly enough for the other process to find it pending.
            let migrations: [SchemaMigration] = (1...3).map { index in
                .backfill("visit-\(index)") { db in
                    Thread.sleep(forTimeInterval: 0.2)
                    try db.execute("UPDATE notes SET visits = visits + 1")
                }
            }
            let migrator = try SchemaMigrator(migrations)
            let first = try SQLiteStore(path: path)
            let second = try SQLiteStore(path: path)
            async let one = first.migrate(migrator)
            async let other = second.migrate(migrator)
            let outcomes = try await [one, other]
            #expect(outcomes.flatMap(\.applied).sorted() == ["visit-1", "visit-2", "visit-3"], "\(outcomes)")
            #expect(try Inspection(path: path).count("SELECT visits FROM notes") == 3)
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
            #expect(run.counts == RunCounts(changed: 6))
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
