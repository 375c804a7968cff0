import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

/// An app that already opened its database with GRDB hands its pool or queue to rederive, which then
/// migrates, derives and reports through the app's own connections.
@Suite("The app's own database")
struct AppDatabaseTests {
    static let payloads: [(String, String)] = [
        ("pancakes", #"{"title": "Pancakes", "ingredients": ["flour", "milk", "eggs"], "minutes": 15}"#),
        ("stew", #"{"title": "Beef Stew", "ingredients": ["beef", "carrots"]}"#),
    ]

    /// Plain JSON, which SQL can edit in place; compressed payloads are covered everywhere else.
    func insertRecipes(_ database: any DatabaseWriter) throws {
        try database.write { db in
            for (slug, json) in Self.payloads {
                try db.execute(sql: "INSERT INTO recipes (slug, json) VALUES (?, ?)", arguments: [slug, json])
            }
        }
    }

    func launchAndCheck(_ database: any DatabaseWriter) async throws {
        let store = try SQLiteStore(database)
        try await store.prepare(recipes)
        try insertRecipes(database)
        // The stew has no time: a plain-SQL step gives it one and makes `quickness` derive it again.
        let migrator = try SchemaMigrator([
            .sql(
                "stew-time", "UPDATE recipes SET json = json_set(json, '$.minutes', 30) WHERE slug = 'stew'",
                invalidates: [.processor("quickness", of: recipes)]
            )
        ])
        let report = try await store.bringUpToDate(pipelines: [recipes], migrator: migrator)
        #expect(report.migrations == ["stew-time"])
        #expect(report.run?.counts == RunCounts(changed: 2))

        // The app reads the values through the very connections it handed over.
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT r.slug, d.ingredient_count, d.is_quick FROM recipes r JOIN recipes_derived d ON d.id = r.id ORDER BY r.slug
                """)
        }
        #expect(rows.map { $0["slug"] as String } == ["pancakes", "stew"])
        #expect(rows.map { $0["ingredient_count"] as Int } == [3, 2])
        #expect(rows.map { $0["is_quick"] as Int } == [1, 0])
        let again = try await store.bringUpToDate(pipelines: [recipes], migrator: migrator)
        #expect(again.migrations.isEmpty && again.run == nil)
    }

    @Test func anAppsDatabasePoolIsUsedAsItIs() async throws {
        try await withTemporaryDatabase { path in
            let pool = try DatabasePool(path: path)
            try await launchAndCheck(pool)
            #expect(try SQLiteStore(pool).path == path)
        }
    }

    @Test func anAppsDatabaseQueueWorksToo() async throws {
        try await withTemporaryDatabase { path in
            try await launchAndCheck(try DatabaseQueue(path: path))
        }
    }

    @Test func oneColumnProcessorsStoreTheirValueOrNull() async throws {
        struct Sample: Decodable, Sendable {
            let number: Double?
        }
        let processors: [Processor<Sample>] = [
            .real("half", version: 1) { sample in sample.number.map { $0 / 2 } },
            .integer("rounded", name: "rounding", version: 3) { sample in sample.number.map { Int($0.rounded()) } },
            .boolean("is_large", version: 1, default: false) { sample in sample.number.map { $0 > 10 } },
            .text("spelled", version: 1) { sample in sample.number.map { "\($0)" } },
            .blob("bytes", version: 1) { sample in sample.number.map { [UInt8(Int($0) & 0xff)] } },
        ]
        #expect(processors.map(\.name) == ["half", "rounding", "is_large", "spelled", "bytes"])
        #expect(processors.map(\.version) == [1, 3, 1, 1, 1])
        #expect(processors.map(\.columns) == [
            [.real("half")], [.integer("rounded")], [.integer("is_large", default: 0)], [.text("spelled")], [.blob("bytes")],
        ])
        let pipeline = Pipeline(
            name: "samples", table: "samples", keyColumn: "key", payloadColumn: "json", decoding: Sample.self, processors: processors
        )
        let everything = Array(processors.indices)
        #expect(pipeline.evaluate(json: Array(#"{"number": 12.6}"#.utf8), selection: everything) == [
            .derived([.real(6.3)]), .derived([.integer(13)]), .derived([.integer(1)]), .derived([.text("12.6")]),
            .derived([.blob([12])]),
        ])
        #expect(pipeline.evaluate(json: Array("{}".utf8), selection: everything) == Array(repeating: .derived([.null]), count: 5))
    }
}
