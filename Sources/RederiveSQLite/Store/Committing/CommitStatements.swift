import GRDB
import Rederive
import RederiveSQL

/// The statements of one commit, prepared once per shape and reused for every record of the batch:
/// writing derived values depends on which processors derived the record, stamping and clearing
/// failures on how many records.
final class CommitStatements {
    private let db: Database
    private let tables: PipelineTables
    private var writes: [[Int]: Statement] = [:]
    private var failureClears: [Int: Statement] = [:]
    private var recordStamps: [Int: Statement] = [:]
    private var keptStamps: [Int: Statement] = [:]

    init(_ db: Database, _ tables: PipelineTables) throws {
        self.db = db
        self.tables = tables
    }

    /// Stores one record's projection: pipeline, record, generation, version, checksum, payload digest, bytes.
    var writeProjection: Statement {
        get throws {
            try db.cachedStatement(sql: """
                INSERT INTO rederive_projections (pipeline, record_id, generation, version, checksum, payload_digest, bytes)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (pipeline, record_id) DO UPDATE SET
                    generation = excluded.generation, version = excluded.version, checksum = excluded.checksum,
                    payload_digest = excluded.payload_digest, bytes = excluded.bytes
                """)
        }
    }

    private func columnNames(_ processors: [Int]) -> [String] {
        processors.flatMap { tables.pipeline.processors[$0].columns.map { SQL.identifier($0.name) } }
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

    /// Upserts one processor's stamps of `count` records. Arguments: what every stamp shares (pipeline,
    /// processor, source, version, input versions, run, time), then four per record (record,
    /// generation, payload digest, inputs digest).
    func stamps(ofRecords count: Int) throws -> Statement {
        if let statement = recordStamps[count] { return statement }
        let rows = Array(repeating: "(?, ?, ?, ?)", count: count).joined(separator: ", ")
        // `WHERE true` tells SQLite that ON CONFLICT belongs to the INSERT, not to a join.
        let statement = try db.cachedStatement(sql: """
            INSERT INTO rederive_stamps
                (pipeline, processor, record_id, source, version, generation, payload_digest, inputs_digest, input_versions,
                 current, run_id, derived_at)
            SELECT ?, ?, v.column1, ?, ?, v.column2, v.column3, v.column4, ?, 1, ?, ?
            FROM (VALUES \(rows)) v WHERE true
            ON CONFLICT (pipeline, processor, record_id) DO UPDATE SET
                version = excluded.version, generation = excluded.generation,
                payload_digest = excluded.payload_digest, inputs_digest = excluded.inputs_digest,
                input_versions = excluded.input_versions, current = 1,
                run_id = excluded.run_id, derived_at = excluded.derived_at
            """)
        recordStamps[count] = statement
        return statement
    }

    /// Keeps, for rollback, one processor's stamps of `count` records as they are before the commit
    /// replaces them (`had_stamp` 0 where there is none); a stamp the run kept already stays, with the
    /// generation of this write. Arguments: the run, pipeline, processor and source, then two per
    /// record (record, generation derived at).
    func keepStamps(ofRecords count: Int) throws -> Statement {
        if let statement = keptStamps[count] { return statement }
        let rows = Array(repeating: "(?, ?)", count: count).joined(separator: ", ")
        // Numbered, the shared arguments come first; each `?` after them takes the next number.
        let statement = try db.cachedStatement(sql: """
            INSERT INTO rederive_replaced_stamps
                (run_id, pipeline, processor, record_id, source, derived_generation, had_stamp,
                 version, generation, payload_digest, inputs_digest, input_versions, current, stamp_run_id, derived_at)
            SELECT ?1, ?2, ?3, k.column1, ?4, k.column2, s.processor IS NOT NULL,
                s.version, s.generation, s.payload_digest, s.inputs_digest, s.input_versions, s.current, s.run_id, s.derived_at
            FROM (VALUES \(rows)) k
            LEFT JOIN rederive_stamps s ON s.pipeline = ?2 AND s.processor = ?3 AND s.record_id = k.column1
            WHERE true
            ON CONFLICT (run_id, pipeline, processor, record_id) DO UPDATE SET derived_generation = excluded.derived_generation
            """)
        keptStamps[count] = statement
        return statement
    }

    /// Deletes the failures of one processor for `count` records: arguments are the pipeline, the
    /// processor's name and the record ids.
    func clearFailures(ofRecords count: Int) throws -> Statement {
        if let statement = failureClears[count] { return statement }
        let records = Array(repeating: "?", count: count).joined(separator: ", ")
        let statement = try db.cachedStatement(
            sql: "DELETE FROM rederive_failures WHERE pipeline = ? AND processor = ? AND record_id IN (\(records))"
        )
        failureClears[count] = statement
        return statement
    }

    /// Whether the processor has any failure kept, current or not, as the transaction sees it now.
    func hasFailures(processor: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM rederive_failures WHERE pipeline = ? AND processor = ?)"),
            arguments: [tables.pipeline.name, processor]
        ) ?? true
    }
}
