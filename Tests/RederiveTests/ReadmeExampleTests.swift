import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import Testing

@Suite("README example")
struct ReadmeExampleTests {
    /// The lines between the begin and end markers of a file.
    static func excerpt(_ text: String) -> String {
        let lines = text.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.contains("README example begin") }),
              let end = lines.firstIndex(where: { $0.contains("README example end") })
        else { return "" }
        return lines[(begin + 1)..<end].joined(separator: "\n")
    }

    @Test func theReadmeShowsExactlyTheCodeThisTestCompiles() throws {
        let readme = try String(contentsOf: PackageRoot.appending("README.md"), encoding: .utf8)
        let source = try String(contentsOf: PackageRoot.appending("Tests/RederiveTestSupport/ReadmeExample.swift"), encoding: .utf8)
        let code = Self.excerpt(source)
        #expect(!code.isEmpty)
        #expect(readme.contains("```swift\nimport Rederive\n\n" + code + "\n```"))
    }

    @Test func theExamplePipelineDerivesAndReportsItsFailure() async throws {
        try await withTemporaryDatabase { path in
            let store = try SQLiteStore(path: path)
            try await store.prepare(recipes)
            let payloads: [(String, String)] = [
                ("pancakes", #"{"title": "Pancakes", "ingredients": ["flour", "milk", "eggs"], "minutes": 15}"#),
                ("stew", #"{"title": "Beef Stew", "ingredients": ["beef", "carrots"], "minutes": 180}"#),
                ("mystery", #"{"title": "Mystery", "ingredients": []}"#),
            ]
            for (slug, json) in payloads {
                try appExecute(path, "INSERT INTO recipes (slug, json) VALUES (?, ?)", [slug, Data(PayloadCodec.encode(Array(json.utf8)))])
            }
            let summary = try await Runner(store: store, pipelines: [recipes]).run()
            // mystery fails quickness, and effort, which reads it, fails upstream of it.
            #expect(summary.counts == RunCounts(changed: 2, failed: 1))
            let rows = try appConnection(path).read { db in
                try Row.fetchAll(db, sql: """
                    SELECT r.slug, d.ingredient_count, d.is_quick, d.title, d.title_words, d.effort
                    FROM recipes r JOIN recipes_derived d ON d.id = r.id ORDER BY r.slug
                    """)
            }
            #expect(rows.map { $0["slug"] as String } == ["mystery", "pancakes", "stew"])
            #expect(rows.map { $0["ingredient_count"] as Int } == [0, 3, 2])
            #expect(rows.map { $0["is_quick"] as Int? } == [nil, 1, 0])
            #expect(rows.map { $0["title"] as String } == ["Mystery", "Pancakes", "Beef Stew"])
            #expect(rows.map { $0["title_words"] as Int } == [1, 1, 2])
            #expect(rows.map { $0["effort"] as String? } == [nil, "easy", "involved"])
            let failures = try await store.failures(of: recipes, filter: FailureFilter())
            #expect(failures.map(\.message) == ["the recipe has no cooking time", "input processor quickness failed for this record"])
            #expect(failures.map(\.kind) == [.processor, .upstream])
            #expect(failures.map(\.key) == ["mystery", "mystery"])
        }
    }
}

@Suite("README migration example")
struct ReadmeMigrationExampleTests {
    @Test func thePipelinesPageShowsExactlyTheMigrationsThisTestRuns() throws {
        let readme = try String(contentsOf: PackageRoot.appending("docs/pipelines.md"), encoding: .utf8)
        let source = try String(contentsOf: PackageRoot.appending("Tests/RederiveTests/ReadmeMigrationExample.swift"), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex { $0.contains("README migration example begin") })
        let end = try #require(lines.firstIndex { $0.contains("README migration example end") })
        #expect(readme.contains("```swift\n" + lines[(begin + 1)..<end].joined(separator: "\n") + "\n```"))
    }

    @Test func theMigrationsApplyAndTheLaunchDerives() async throws {
        try await withTemporaryDatabase { path in
            let pool = try DatabasePool(path: path)
            try await SQLiteStore(pool).prepare(recipes)
            try await pool.write { db in
                try db.execute(sql: "ALTER TABLE recipes ADD COLUMN notes TEXT")
                // Plain JSON, which SQL edits in place.
                try db.execute(sql: """
                    INSERT INTO recipes (slug, json, notes) VALUES
                        ('PANCAKES', '{"title": "Pancakes", "ingredients": ["flour", "milk", "eggs"], "minutes": 15}', 'fluffy'),
                        ('stew', '{"title": "Beef Stew", "ingredients": ["beef", "carrots"]}', NULL)
                    """)
            }
            let report = try await launchAsTheReadmeShows(appDatabasePool: pool, launchProgress: NoProgress())
            #expect(report.migrations == ["add-rating", "index-slug", "rename-notes", "backfill-minutes", "lowercase-slugs"])
            #expect(report.run?.counts == RunCounts(changed: 2))
            let rows = try pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT r.slug, r.rating, r.remarks, d.is_quick FROM recipes r JOIN recipes_derived d ON d.id = r.id ORDER BY r.slug
                    """)
            }
            #expect(rows.map { $0["slug"] as String } == ["pancakes", "stew"])
            #expect(rows.map { $0["rating"] as Int } == [0, 0])
            #expect(rows.map { $0["remarks"] as String? } == ["fluffy", nil])
            #expect(rows.map { $0["is_quick"] as Int } == [1, 0])
            let again = try await launchAsTheReadmeShows(appDatabasePool: pool, launchProgress: NoProgress())
            #expect(again.migrations.isEmpty && again.run == nil)
        }
    }
}
