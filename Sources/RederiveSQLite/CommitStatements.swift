import GRDB
import Rederive

/// The statements of one commit, prepared once per shape and reused for every record of the batch:
/// reading and writing derived values depends on which processors derived the record, stamping and
/// clearing failures on how many.
final class CommitStatements {
    private let db: Database
    private let tables: PipelineTables
    let generation: Statement
    private var selects: [[Int]: Statement] = [:]
    private var writes: [[Int]: Statement] = [:]
    private var stampUpserts: [Int: Statement] = [:]
    private var failureClears: [Int: Statement] = [:]

    init(_ db: Database, _ tables: PipelineTables) throws {
        self.db = db
        self.tables = tables
        generation = try db.cachedStatement(sql: "SELECT generation FROM rederive_records WHERE source = ? AND record_id = ?")
    }

    private func columnNames(_ processors: [Int]) -> [String] {
        processors.flatMap { tables.pipeline.processors[$0].columns.map { SQL.identifier($0.name) } }
    }

    /// Reads the stored values of these processors' columns, by record id.
    func selectValues(_ processors: [Int]) throws -> Statement {
        if let statement = selects[processors] { return statement }
        let statement = try db.cachedStatement(sql: """
            SELECT \(columnNames(processors).joined(separator: ", ")) FROM \(tables.destination) WHERE \(tables.destinationID) = ?
            """)
        selects[processors] = statement
        return statement
    }

    /// Writes these processors' columns: the companion row's upsert (id first), or the record's update (id last).
    func writeValues(_ processors: [Int]) throws -> Statement {
        if let statement = writes[processors] { return statement }
        let names = columnNames(processors)
        let sql = switch tables.pipeline.layout {
        case .companion:
            """
            INSERT INTO \(tables.destination) (id, \(names.joined(separator: ", "))) \
            VALUES (\(Array(repeating: "?", count: names.count + 1).joined(separator: ", "))) \
            ON CONFLICT (id) DO UPDATE SET \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """
        case .inline:
            "UPDATE \(tables.table) SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(tables.id) = ?"
        }
        let statement = try db.cachedStatement(sql: sql)
        writes[processors] = statement
        return statement
    }

    /// Upserts `count` stamps: eleven arguments each (pipeline, processor, record, source, version,
    /// generation, payload digest, inputs digest, input versions, run, time).
    func stamps(count: Int) throws -> Statement {
        if let statement = stampUpserts[count] { return statement }
        let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)", count: count).joined(separator: ", ")
        let statement = try db.cachedStatement(sql: """
            INSERT INTO rederive_stamps
                (pipeline, processor, record_id, source, version, generation, payload_digest, inputs_digest, input_versions,
                 current, run_id, derived_at)
            VALUES \(rows)
            ON CONFLICT (pipeline, processor, record_id) DO UPDATE SET
                version = excluded.version, generation = excluded.generation,
                payload_digest = excluded.payload_digest, inputs_digest = excluded.inputs_digest,
                input_versions = excluded.input_versions, current = 1,
                run_id = excluded.run_id, derived_at = excluded.derived_at
            """)
        stampUpserts[count] = statement
        return statement
    }

    /// Deletes a record's failures for `count` processors: arguments are the pipeline, the record id and the names.
    func clearFailures(count: Int) throws -> Statement {
        if let statement = failureClears[count] { return statement }
        let names = Array(repeating: "?", count: count).joined(separator: ", ")
        let statement = try db.cachedStatement(
            sql: "DELETE FROM rederive_failures WHERE pipeline = ? AND record_id = ? AND processor IN (\(names))"
        )
        failureClears[count] = statement
        return statement
    }
}
