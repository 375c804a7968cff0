import GRDB
import Rederive

/// Brings a database in line with what a pipeline declares: its table, its output columns and the
/// triggers that track payload changes by every writer.
struct PipelineSchema {
    let tables: PipelineTables
    var pipeline: Pipeline { tables.pipeline }

    /// What is missing, found without writing anything.
    struct Changes {
        var createTable = false
        var createCompanion = false
        var addColumns: [(table: String, column: OutputColumn)] = []
        var replaceTriggers = false
        var isEmpty: Bool { !createTable && !createCompanion && addColumns.isEmpty && !replaceTriggers }
    }

    func changes(_ db: Database) throws -> Changes {
        var changes = Changes()
        if try db.tableExists(pipeline.table) {
            let columns = Set(try db.columns(in: pipeline.table).map { $0.name.lowercased() })
            for required in [pipeline.idColumn, pipeline.payloadColumn] + (pipeline.keyColumn.map { [$0] } ?? [])
            where !columns.contains(required.lowercased()) {
                throw RederiveError(
                    .schemaMismatch,
                    "table \"\(pipeline.table)\" has no column \"\(required)\", which pipeline \"\(pipeline.name)\" reads"
                )
            }
            if pipeline.layout == .inline {
                changes.addColumns += pipeline.outputColumns
                    .filter { !columns.contains($0.name.lowercased()) }
                    .map { (pipeline.table, $0) }
            }
        } else {
            changes.createTable = true
            if pipeline.layout == .inline {
                changes.addColumns += pipeline.outputColumns.map { (pipeline.table, $0) }
            }
        }
        if let companion = tables.companionTable {
            if try db.tableExists(companion) {
                let columns = Set(try db.columns(in: companion).map { $0.name.lowercased() })
                changes.addColumns += pipeline.outputColumns
                    .filter { !columns.contains($0.name.lowercased()) }
                    .map { (companion, $0) }
            } else {
                changes.createCompanion = true
            }
        }
        let existing = try Row.fetchAll(
            db,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
            arguments: [pipeline.table]
        )
        let installed = Dictionary(existing.map { (row: Row) -> (String, String) in (row["name"], row["sql"]) }, uniquingKeysWith: { a, _ in a })
        changes.replaceTriggers = triggers.contains { installed[$0.name] != $0.sql }
        return changes
    }

    func apply(_ changes: Changes, _ db: Database) throws {
        if changes.createTable {
            var columns = ["\(tables.id) INTEGER PRIMARY KEY"]
            if let key = tables.key { columns.append("\(key) TEXT NOT NULL UNIQUE") }
            columns.append("\(tables.payload) BLOB NOT NULL")
            try db.execute(sql: "CREATE TABLE \(tables.table) (\(columns.joined(separator: ", ")))")
        }
        if changes.createCompanion {
            let columns = ["id INTEGER PRIMARY KEY REFERENCES \(tables.table)(\(tables.id)) ON DELETE CASCADE"]
                + pipeline.outputColumns.map(SQL.definition)
            try db.execute(sql: "CREATE TABLE \(tables.destination) (\(columns.joined(separator: ", ")))")
        }
        for (table, column) in changes.addColumns {
            try db.execute(sql: "ALTER TABLE \(SQL.identifier(table)) ADD COLUMN \(SQL.definition(of: column))")
        }
        if changes.replaceTriggers {
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
