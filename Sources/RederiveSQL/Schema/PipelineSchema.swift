import Rederive

/// What a database lacks of what a pipeline declares, and the statements that create it: its table,
/// its companion table and its output columns. Each store adds how it reads a table's columns and
/// the triggers that track payload changes, which differ too much to share.
package struct PipelineSchema<Dialect: SQLDialect>: Sendable {
    /// The names the statements are built from.
    package let tables: PipelineTables<Dialect>
    /// The pipeline whose schema this is.
    package var pipeline: Pipeline { tables.pipeline }

    /// The schema of the pipeline named by `tables`.
    package init(tables: PipelineTables<Dialect>) {
        self.tables = tables
    }

    /// What is missing, found without writing anything.
    package struct Changes: Sendable {
        /// The pipeline's table does not exist.
        package var createTable = false
        /// The companion table does not exist.
        package var createCompanion = false
        /// Output columns to add to existing tables (unquoted table names).
        package var addColumns: [(table: String, column: OutputColumn)] = []
        /// The triggers that track payload changes are missing or differ from the store's.
        package var replaceTracking = false
        /// The payload column's type, as the database names it: the store's own when it creates the table.
        package var payloadType: String?
        /// Whether nothing is missing.
        package var isEmpty: Bool { !createTable && !createCompanion && addColumns.isEmpty && !replaceTracking }
    }

    /// The tables and columns missing, from the columns the pipeline's table and its companion table
    /// have (each by ``SQLDialect/comparable(_:)`` name, to its declared type), nil for a table that
    /// does not exist. Tracking is the store's to check.
    ///
    /// - Throws: `RederiveError` with code `RederiveError/Code/schemaMismatch` when the table
    ///   exists without a column the pipeline reads.
    package func changes(table columns: [String: String]?, companion: [String: String]?) throws(RederiveError) -> Changes {
        var changes = Changes()
        if let columns {
            for required in [pipeline.idColumn, pipeline.payloadColumn] + (pipeline.keyColumn.map { [$0] } ?? [])
            where columns[Dialect.comparable(required)] == nil {
                throw RederiveError(
                    .schemaMismatch,
                    "table \"\(pipeline.table)\" has no column \"\(required)\", which pipeline \"\(pipeline.name)\" reads"
                )
            }
            changes.payloadType = columns[Dialect.comparable(pipeline.payloadColumn)]
            if pipeline.layout == .inline {
                changes.addColumns += missing(from: columns).map { (pipeline.table, $0) }
            }
        } else {
            changes.createTable = true
            changes.payloadType = Dialect.columnType(.blob)
            if pipeline.layout == .inline {
                changes.addColumns += pipeline.outputColumns.map { (pipeline.table, $0) }
            }
        }
        if let name = tables.companionTable {
            if let companion {
                changes.addColumns += missing(from: companion).map { (name, $0) }
            } else {
                changes.createCompanion = true
            }
        }
        return changes
    }

    private func missing(from columns: [String: String]) -> [OutputColumn] {
        pipeline.outputColumns.filter { columns[Dialect.comparable($0.name)] == nil }
    }

    /// The statements that create the tables and add the columns `changes` lacks, in order.
    package func statements(for changes: Changes) -> [String] {
        let t = tables
        var statements: [String] = []
        if changes.createTable {
            var columns = ["\(t.id) \(Dialect.recordIDDefinition)"]
            if let key = t.key { columns.append("\(key) \(Dialect.columnType(.text)) NOT NULL UNIQUE") }
            columns.append("\(t.payload) \(Dialect.columnType(.blob)) NOT NULL")
            statements.append("CREATE TABLE \(t.table) (\(columns.joined(separator: ", ")))")
        }
        if changes.createCompanion {
            let columns = [Dialect.companionIDDefinition(referencing: t.table, t.id)] + pipeline.outputColumns.map(Dialect.definition)
            statements.append("CREATE TABLE \(t.destination) (\(columns.joined(separator: ", ")))")
        }
        for (table, column) in changes.addColumns {
            statements.append("ALTER TABLE \(Dialect.identifier(table)) \(Dialect.addColumn) \(Dialect.definition(of: column))")
        }
        return statements
    }
}
