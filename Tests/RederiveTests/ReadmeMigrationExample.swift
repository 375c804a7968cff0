import GRDB
import Rederive
import RederiveSQLite

/// The launch-time example as docs/pipelines.md shows it, given the app's pool and progress reporter.
func launchAsTheReadmeShows(appDatabasePool: DatabasePool, launchProgress: some ProgressReporter) async throws -> LaunchReport {
// README migration example begin
let migrator = try SchemaMigrator([
    .addColumn("add-rating", table: "recipes", column: .integer("rating", default: 0)),
    .addIndex("index-slug", table: "recipes", columns: ["slug"], unique: true),
    .renameColumn("rename-notes", table: "recipes", from: "notes", to: "remarks"),
    // `invalidates` makes the next run recompute what the step affected, in the pipeline it names.
    .sql("backfill-minutes", "UPDATE recipes SET json = json_set(json, '$.minutes', 30) WHERE slug = 'stew'",
         invalidates: [.processor("quickness", of: recipes)]),
    // A step that reads before it writes, in Swift, with bound values: on SQLite and PostgreSQL alike.
    .backfill("lowercase-slugs") { db in
        for row in try db.rows("SELECT id, slug FROM recipes") {
            let slug = try row.text("slug")?.lowercased()
            try db.execute("UPDATE recipes SET slug = \(slug) WHERE id = \(try row.integer("id"))")
        }
    },
])
// The app's own GRDB pool (or queue): rederive works through it instead of opening a second one.
let report = try await SQLiteStore(appDatabasePool)
    .bringUpToDate(pipelines: [recipes], migrator: migrator, progress: launchProgress)
// README migration example end
    return report
}
