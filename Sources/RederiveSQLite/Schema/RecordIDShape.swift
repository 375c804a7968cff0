import GRDB
import Rederive

/// The one shape of table rederive derives on SQLite: a table (not a view) whose id column is its
/// `INTEGER PRIMARY KEY`, an alias of the rowid. Then every record has an id, a unique 64-bit integer,
/// that the bookkeeping and the triggers key it by. Any other shape (`id TEXT PRIMARY KEY`, an `id`
/// that is not the primary key or only part of it, `WITHOUT ROWID`, a view) lets `id` hold values
/// that are not such an id, so it is refused, in one line naming the column, before anything is written.
///
/// The key column has no such rule: SQLite lets it hold any storage class, and rederive reads it as
/// text (``RecordKey``).
enum RecordIDShape {
    /// Throws, in one line, unless `pipeline`'s table is missing or has the shape rederive derives.
    static func require(_ pipeline: Pipeline, _ db: Database) throws {
        guard let problem = try problem(pipeline, db) else { return }
        if problem == viewProblem {
            throw RederiveError(
                .schemaMismatch,
                "\"\(pipeline.table)\" is a view, and rederive derives into a table whose column \"\(pipeline.idColumn)\" is its INTEGER PRIMARY KEY (the rowid)"
            )
        }
        throw RederiveError(
            .schemaMismatch,
            "table \"\(pipeline.table)\": column \"\(pipeline.idColumn)\" must be its INTEGER PRIMARY KEY (the rowid, which rederive keys records by), and \(problem)"
        )
    }

    private static let viewProblem = "a view"

    /// What keeps the table from the shape, in a few words; nil when it has it or does not exist.
    private static func problem(_ pipeline: Pipeline, _ db: Database) throws -> String? {
        guard let object = try Row.fetchOne(
            db, sql: "SELECT type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
            arguments: [pipeline.table]
        ) else { return nil }
        if (object["type"] as String?) == "view" {
            return viewProblem
        }
        let columns = try Row.fetchAll(
            db, sql: "SELECT name, type, pk FROM pragma_table_info(?, 'main')", arguments: [pipeline.table]
        )
        guard let id = columns.first(where: { ($0["name"] as String?)?.lowercased() == pipeline.idColumn.lowercased() }) else {
            return nil  // a missing column is reported with the others the pipeline reads
        }
        let type = (id["type"] as String?) ?? ""
        let declared = type.isEmpty ? "declared without a type" : "declared \(type)"
        if (id["pk"] as Int?) ?? 0 == 0 {
            return "it is \(declared) and not the primary key"
        }
        if columns.contains(where: { ($0["pk"] as Int?) ?? 0 > 1 }) {
            return "the primary key spans several columns"
        }
        let primaryKeyIndexed = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_index_list(?, 'main') WHERE origin = 'pk')", arguments: [pipeline.table]
        ) ?? false
        guard primaryKeyIndexed else { return nil }
        if type.uppercased() != "INTEGER" {
            return "it is \(declared) PRIMARY KEY"
        }
        let definition = ((object["sql"] as String?) ?? "").uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return definition.hasSuffix("WITHOUT ROWID") ? "the table is WITHOUT ROWID" : "it is not an alias of the rowid (PRIMARY KEY DESC)"
    }
}
