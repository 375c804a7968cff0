import GRDB
import Rederive
import RederiveSQL

/// Brings a database in line with what a pipeline declares: its table, its output columns and the
/// triggers that track payload changes by every writer. The shared ``RederiveSQL/PipelineSchema`` in
/// this store's dialect, with SQLite's reading of a table's columns and its triggers.
typealias PipelineSchema = RederiveSQL.PipelineSchema<SQL>

extension RederiveSQL.PipelineSchema where Dialect == SQL {
    /// What is missing, found without writing anything.
    func changes(_ db: Database) throws -> Changes {
        try RecordIDShape.require(pipeline, db)
        var changes = try changes(
            table: Self.columns(of: pipeline.table, db),
            companion: try tables.companionTable.flatMap { try Self.columns(of: $0, db) }
        )
        let existing = try Row.fetchAll(
            db,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
            arguments: [pipeline.table]
        )
        let installed = Dictionary(existing.map { (row: Row) -> (String, String) in (row["name"], row["sql"]) }, uniquingKeysWith: { a, _ in a })
        changes.replaceTracking = triggers.contains { installed[$0.name] != $0.sql }
        return changes
    }

    /// The table's columns, by lowercased name, to their declared types; nil when it does not exist.
    /// The name is bound, not quoted into a pragma: GRDB's column listing breaks on a `"` in a name.
    private static func columns(of table: String, _ db: Database) throws -> [String: String]? {
        let rows = try Row.fetchAll(
            db, sql: "SELECT name, type FROM pragma_table_xinfo(?, 'main') WHERE hidden != 1", arguments: [table]
        )
        guard !rows.isEmpty else { return nil }
        return Dictionary(rows.map { (($0["name"] as String).lowercased(), $0["type"] as String) }, uniquingKeysWith: { first, _ in first })
    }

    func apply(_ changes: Changes, _ db: Database) throws {
        for statement in statements(for: changes) {
            try db.execute(sql: statement)
        }
        if changes.replaceTracking {
            for trigger in triggers {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(SQL.identifier(trigger.name))")
                try db.execute(sql: trigger.sql)
            }
            try reconcile(db)
        }
    }

    /// Brings the bookkeeping in line with the table after a time without triggers: every record
    /// gets a generation, and rows of records that no longer exist go.
    private func reconcile(_ db: Database) throws {
        let t = tables
        try db.execute(sql: """
            INSERT INTO rederive_records (source, record_id, generation)
            SELECT \(t.source), \(t.id), random() FROM \(t.table) WHERE true
            ON CONFLICT (source, record_id) DO NOTHING;
            DELETE FROM rederive_records WHERE source = \(t.source)
                AND record_id NOT IN (SELECT \(t.id) FROM \(t.table));
            DELETE FROM rederive_stamps WHERE source = \(t.source)
                AND record_id NOT IN (SELECT \(t.id) FROM \(t.table));
            DELETE FROM rederive_failures WHERE source = \(t.source)
                AND record_id NOT IN (SELECT \(t.id) FROM \(t.table));
            """)
        if tables.companionTable != nil {
            try db.execute(sql: """
                DELETE FROM \(t.destination) WHERE id NOT IN (SELECT \(t.id) FROM \(t.table))
                """)
        }
    }

    /// The triggers that keep bookkeeping right for every writer, rederive or not.
    ///
    /// An inserted or replaced payload gets a new random generation and makes the record's stamps
    /// and failures not current. A deleted record takes its bookkeeping and derived row with it.
    /// Updating derived columns alone fires nothing.
    var triggers: [(name: String, sql: String)] {
        let t = tables
        let prefix = "rederive_\(pipeline.table)"
        func renew(_ record: String) -> String {
            """
            INSERT INTO rederive_records (source, record_id, generation) VALUES (\(t.source), \(record), random())
                    ON CONFLICT (source, record_id) DO UPDATE SET generation = excluded.generation;
                UPDATE rederive_stamps SET current = 0 WHERE source = \(t.source) AND record_id = \(record) AND current;
                UPDATE rederive_failures SET current = 0 WHERE source = \(t.source) AND record_id = \(record) AND current;
            """
        }
        func forget(_ record: String, when condition: String = "") -> String {
            var statements = """
                DELETE FROM rederive_records WHERE source = \(t.source) AND record_id = \(record)\(condition);
                    DELETE FROM rederive_stamps WHERE source = \(t.source) AND record_id = \(record)\(condition);
                    DELETE FROM rederive_failures WHERE source = \(t.source) AND record_id = \(record)\(condition);
                """
            if tables.companionTable != nil {
                statements += "\n    DELETE FROM \(t.destination) WHERE id = \(record)\(condition);"
            }
            return statements
        }
        let inserted = "\(prefix)_inserted"
        let updated = "\(prefix)_payload_updated"
        let deleted = "\(prefix)_deleted"
        return [
            (inserted, """
                CREATE TRIGGER \(SQL.identifier(inserted)) AFTER INSERT ON \(t.table) BEGIN
                    \(renew("NEW.\(t.id)"))
                END
                """),
            (updated, """
                CREATE TRIGGER \(SQL.identifier(updated)) AFTER UPDATE OF \(t.payload), \(t.id) ON \(t.table)
                WHEN NEW.\(t.payload) IS NOT OLD.\(t.payload) OR NEW.\(t.id) IS NOT OLD.\(t.id) BEGIN
                    \(forget("OLD.\(t.id)", when: " AND OLD.\(t.id) IS NOT NEW.\(t.id)"))
                    \(renew("NEW.\(t.id)"))
                END
                """),
            (deleted, """
                CREATE TRIGGER \(SQL.identifier(deleted)) AFTER DELETE ON \(t.table) BEGIN
                    \(forget("OLD.\(t.id)"))
                END
                """),
        ]
    }
}
