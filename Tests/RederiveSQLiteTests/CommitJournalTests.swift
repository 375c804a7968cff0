import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

/// A commit on the store's own connections keeps its statement journals in memory, and only while it
/// commits; an app's own connections keep their settings and temporary tables.
@Suite("A commit's statement journals")
struct CommitJournalTests {
    static let recipeCount = 300

    func insertRecipes(_ database: any DatabaseWriter) throws {
        try database.write { db in
            for index in 0..<Self.recipeCount {
                try db.execute(
                    sql: "INSERT INTO recipes (slug, json) VALUES (?, ?)",
                    arguments: ["recipe-\(index)", #"{"title": "Recipe \#(index)", "ingredients": ["flour", "milk"], "minutes": \#(index)}"#]
                )
            }
        }
    }

    @Test func theStoresOwnCommitsJournalInMemoryAndOnlyWhileTheyCommit() async throws {
        try await withTemporaryDatabase { path in
            let store = try SQLiteStore(path: path)
            try await store.prepare(recipes)
            try insertRecipes(try DatabaseQueue(path: path))
            // 2 is MEMORY: a statement journal of the commit never spills to a temporary file.
            let during = try await store.commitTransaction { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
            #expect(during == 2)
            let summary = try await Runner(store: store, pipelines: [recipes]).run()
            #expect(summary.counts.changed == Self.recipeCount)
            // Statements after the commit, which may touch whole tables, journal as SQLite's default says.
            let setting = try await store.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
            #expect(setting == 0)
            await store.close()
        }
    }

    @Test func anAppsTemporaryTablesAndSettingSurviveTheCommits() async throws {
        try await withTemporaryDatabase { path in
            // One connection, so that rederive's commits run on the very connection the app set up.
            let queue = try DatabaseQueue(path: path)
            try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA temp_store = FILE")
                try db.execute(sql: "CREATE TEMP TABLE app_scratch (note TEXT)")
                try db.execute(sql: "INSERT INTO app_scratch (note) VALUES ('kept')")
            }
            let store = try SQLiteStore(queue)
            try await store.prepare(recipes)
            try insertRecipes(queue)
            let during = try await store.commitTransaction { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
            #expect(during == 1)
            let summary = try await Runner(store: store, pipelines: [recipes]).run()
            #expect(summary.counts.changed == Self.recipeCount)
            let (setting, notes) = try await queue.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA temp_store"), try String.fetchAll(db, sql: "SELECT note FROM app_scratch"))
            }
            #expect(setting == 1)
            #expect(notes == ["kept"])
        }
    }
}
