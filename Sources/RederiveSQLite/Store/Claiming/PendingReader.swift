import GRDB
import Rederive
import RederiveSQL

/// Reads picked records for derivation within one read transaction: each generation with the payload
/// it belongs to, the payload only when a processor that reads it may run, and the stored values
/// the plan's dependents read.
struct PendingReader {
    let plan: RunPlan
    let tables: PipelineTables
    let db: Database

    init(_ plan: RunPlan, _ tables: PipelineTables, _ db: Database) {
        self.plan = plan
        self.tables = tables
        self.db = db
    }

    /// The picked records still present, in order; the batch ends once its payloads hold `byteLimit`
    /// bytes, and always holds a record when one is present. `judged` holds, for picks whose projection
    /// the pick already found not to serve (``ProjectionPickRead``), why not: their projections are
    /// not read again.
    ///
    /// A record whose payload is on a damaged page of the file throws ``DamagedPayload``; read again with
    /// it in `knownDamaged`, it is handed out to fail (`PendingInput/unreadable(_:fallback:)`), its generation
    /// read from its row, which does not hold the payload's pages.
    func read(
        _ picks: [PendingPick], byteLimit: Int = .max, judged: [Int64: ProjectionFallback]? = nil, knownDamaged: Set<Int64> = []
    ) throws -> [PendingRecord] {
        let withPayload = try db.cachedStatement(sql: """
            SELECT r.generation, t.\(tables.payload) FROM rederive_records r
            JOIN \(tables.table) t ON t.\(tables.id) = r.record_id
            WHERE r.source = ? AND r.record_id = ?
            """)
        let withoutPayload = try db.cachedStatement(sql: """
            SELECT r.generation FROM rederive_records r
            JOIN \(tables.table) t ON t.\(tables.id) = r.record_id
            WHERE r.source = ? AND r.record_id = ?
            """)
        let projections = try plan.readsProjections && judged == nil ? ProjectionReader(plan.pipeline, tables, db) : nil
        let inputs = plan.dependencyColumns
        let storedValues = try inputs.isEmpty ? nil : storedValuesStatement(inputs)
        let blobs = PayloadBlobReader(db, table: plan.pipeline.table, column: plan.pipeline.payloadColumn)
        defer { blobs.close() }
        var records: [PendingRecord] = []
        records.reserveCapacity(picks.count)
        var bytes = 0
        for pick in picks where records.isEmpty || bytes < byteLimit {
            // A current projection serves the payload processors instead of the payload.
            var projection: StoredProjection?
            var fallback = pick.readsPayload ? judged?[pick.recordID] : nil
            var generation: Int64 = 0
            if pick.readsPayload, let projections {
                switch try projections.read(pick.recordID) {
                case nil: continue  // deleted since it was picked
                case .current(let current, let currentGeneration)?:
                    projection = current
                    generation = currentGeneration
                case .fallback(let reason)?: fallback = reason
                }
            }
            let readsPayload = pick.readsPayload && projection == nil
            var payload: [UInt8]?
            var damage: String?
            // The projection's read gave the generation: the table's triggers keep `rederive_records`
            // and the table together, so the record is there (as ``PayloadFreeRead`` relies on).
            if projection == nil {
                let arguments: StatementArguments = [plan.pipeline.table, pick.recordID]
                let damaged = readsPayload && knownDamaged.contains(pick.recordID)
                do {
                    // A record deleted since it was picked is simply gone.
                    guard let found = try Int64.fetchOne(withoutPayload, arguments: arguments) else { continue }
                    generation = found
                    if readsPayload && !damaged {
                        // The payload straight from its pages; what a BLOB handle cannot read, the
                        // statement reads and judges as it always did.
                        payload = blobs.read(pick.recordID)
                        if payload == nil {
                            let cursor = try Row.fetchCursor(withPayload, arguments: arguments)
                            if let row = try cursor.next() { payload = SQLiteStore.payloadBytes(row, at: 1) }
                        }
                    }
                    damage = damaged ? Self.damagedPayload : nil
                } catch let error as DatabaseError where readsPayload && error.resultCode == .SQLITE_CORRUPT {
                    // A damaged page holds the payload. SQLite then fails the transaction's end, so
                    // the claim reads its records again in another, this one known to be damaged.
                    // Setting arguments resets the cached statements, and so spends their error,
                    // which SQLite would report again at a statement's next use.
                    _ = try? withPayload.setArguments(arguments)
                    _ = try? withoutPayload.setArguments(arguments)
                    throw DamagedPayload(recordID: pick.recordID)
                }
            }
            bytes += payload?.count ?? 0
            let stored = if let storedValues, plan.needsStoredValues(stale: pick.staleProcessors) {
                try values(of: inputs, pick.recordID, storedValues)
            } else {
                [Int: [DerivedValue]]()
            }
            records.append(PendingRecord(
                recordID: pick.recordID, generation: generation, staleProcessors: pick.staleProcessors,
                input: PendingInput(projection: projection, readsPayload: readsPayload, payload: payload, fallback: fallback, damage: damage),
                dependencies: plan.dependencyState(
                    stale: pick.staleProcessors, storedValues: stored, consumedDigests: pick.consumedDigests, failures: pick.failures,
                    storageRules: SQLiteStorage.rules
                )
            ))
        }
        return records
    }

    /// A record whose payload SQLite cannot read: a page that holds it is damaged.
    struct DamagedPayload: Error {
        let recordID: Int64
    }

    /// The failure of a record whose payload is on a damaged page of the database file.
    static let damagedPayload =
        "its payload is on a damaged page of the database file, which SQLite finds corrupt; restore the database from a backup"

    private func storedValuesStatement(_ processors: [Int]) throws -> Statement {
        let columns = processors.flatMap { plan.pipeline.processors[$0].columns }.map { SQL.identifier($0.name) }
        return try db.cachedStatement(sql: """
            SELECT \(columns.joined(separator: ", ")) FROM \(tables.destination) WHERE \(tables.destinationID) = ?
            """)
    }

    /// The processors' stored values, by processor; none when the record has no row of derived values.
    private func values(of processors: [Int], _ recordID: Int64, _ statement: Statement) throws -> [Int: [DerivedValue]] {
        guard let row = try Row.fetchOne(statement, arguments: [recordID]) else { return [:] }
        return Self.values(of: processors, in: plan.pipeline, row, from: 0)
    }

    /// The processors' values in the columns of `row` from `start` on, in the processors' order.
    static func values(of processors: [Int], in pipeline: Pipeline, _ row: Row, from start: Int) -> [Int: [DerivedValue]] {
        var values: [Int: [DerivedValue]] = [:]
        var column = start
        for processor in processors {
            let count = pipeline.processors[processor].columns.count
            values[processor] = (column..<column + count).map { DerivedValue(row[$0] as DatabaseValue) }
            column += count
        }
        return values
    }
}

/// Reads picked records whole in the pick query itself, for claims in which no processor reads the
/// payload: the query gains the stored values the plan's dependents read, so a record needs no
/// statement of its own. What it hands out is what ``PendingReader`` would read for the same records.
///
/// Unlike ``PendingReader`` it does not look the record up in the pipeline's table: the pick reads
/// `rederive_records` in the same transaction, and the table's triggers insert and delete a record's
/// row there together with the record, so a picked record is in the table. Sparing that lookup spares
/// reading a page of the table per record.
struct PayloadFreeRead {
    let plan: RunPlan
    let inputs: [Int]
    let tables: PipelineTables

    init(_ plan: RunPlan, _ tables: PipelineTables) {
        self.plan = plan
        self.tables = tables
        inputs = plan.dependencyColumns
    }

    /// The query around the pending query `picking`: its columns, then whether the record has a row of
    /// derived values, then the stored input values (``columnCount`` columns), then `more` columns
    /// from the tables `joining` adds to `q` (the pending query) and `d` (the derived values).
    func sql(picking: String, more: String = "", joining: String = "") -> String {
        let columns = inputs.flatMap { plan.pipeline.processors[$0].columns }.map { ", d.\(SQL.identifier($0.name))" }
        return """
            SELECT q.*, d.\(tables.destinationID) IS NOT NULL\(columns.joined())\(more)
            FROM (\(picking)) q
            LEFT JOIN \(tables.destination) d ON d.\(tables.destinationID) = q.record_id\(joining)
            ORDER BY q.record_id
            """
    }

    /// The columns ``sql(picking:more:joining:)`` selects after the pending query's, up to `more`.
    var columnCount: Int {
        1 + inputs.reduce(0) { $0 + plan.pipeline.processors[$1].columns.count }
    }

    /// The record a row describes; `start` is where the pending query's columns end. Its payload
    /// processors derive from `projection` when one is given, a current one read with the row.
    func record(_ pick: PendingPick, _ row: Row, at start: Int, projection: StoredProjection? = nil) -> PendingRecord {
        let stored = if row[start] as Bool, plan.needsStoredValues(stale: pick.staleProcessors) {
            PendingReader.values(of: inputs, in: plan.pipeline, row, from: start + 1)
        } else {
            [Int: [DerivedValue]]()
        }
        return PendingRecord(
            recordID: pick.recordID, generation: pick.generation, staleProcessors: pick.staleProcessors,
            input: projection.map(PendingInput.projection) ?? .notRead,
            dependencies: plan.dependencyState(
                stale: pick.staleProcessors, storedValues: stored, consumedDigests: pick.consumedDigests, failures: pick.failures,
                storageRules: SQLiteStorage.rules
            )
        )
    }
}
