import GRDB
import Rederive
import RederiveSQL

/// Reads picked records in the pick query itself when their payload processors may derive from
/// stored projections: the query gains, beside what ``PayloadFreeRead`` reads, each record's
/// projection, judged as ``ProjectionReader`` judges it in the same transaction. A record whose
/// projection serves, or which reads no payload, is handed out whole, so a bump on projections costs
/// one statement per claim, as a bump of dependents does. The others are read from their payloads by
/// ``PendingReader`` outside the claim's lock, with the reason their projection did not serve.
struct ProjectionPickRead {
    /// What a row of the query says of its record.
    enum Read {
        /// The record, read whole.
        case whole(PendingRecord)
        /// Its payload must be read: why its projection does not serve, and the payload's stored length.
        case payload(ProjectionFallback, length: Int)
    }

    let whole: PayloadFreeRead
    let tables: PipelineTables
    let version: Int

    init(_ plan: RunPlan, _ tables: PipelineTables) {
        whole = PayloadFreeRead(plan, tables)
        self.tables = tables
        version = plan.pipeline.projectionVersion ?? 0
    }

    /// The query around the pending query `picking`: ``PayloadFreeRead``'s columns, then the record's
    /// projection (``ProjectionReader/columns``), then the stored payload's length, NULL when the
    /// projection was written from this generation by this version. Its arguments are the pending
    /// query's followed by ``joinArguments``.
    func sql(picking: String) -> String {
        // The version is the pipeline's integer; the record's generation is the pending query's.
        whole.sql(
            picking: picking,
            more: """
                , \(ProjectionReader.columns), CASE WHEN p.generation = q.generation AND p.version = \(version) THEN NULL \
                ELSE (SELECT length(t.\(tables.payload)) FROM \(tables.table) t WHERE t.\(tables.id) = q.record_id) END
                """,
            joining: "\nLEFT JOIN rederive_projections p ON p.pipeline = ? AND p.record_id = q.record_id"
        )
    }

    /// The arguments of the projections' join, which follow the pending query's.
    var joinArguments: StatementArguments { [tables.pipeline.name] }

    /// What a row says of its record; `start` is where the pending query's columns end. A payload's
    /// length the row does not hold (the projection looked current until its checksum was checked)
    /// is read from `db`.
    func read(_ pick: PendingPick, _ row: Row, at start: Int, _ db: Database) throws -> Read {
        guard pick.readsPayload else { return .whole(whole.record(pick, row, at: start)) }
        let column = start + whole.columnCount
        switch ProjectionReader.judge(row, at: column, generation: pick.generation, version: version) {
        case .current(let projection, _):
            return .whole(whole.record(pick, row, at: start, projection: projection))
        case .fallback(let reason):
            let length = try row[column + 5] as Int? ?? payloadLength(of: pick.recordID, db)
            return .payload(reason, length: length)
        }
    }

    /// The stored length of a record's payload; 0 when it is NULL or the record is gone.
    private func payloadLength(of recordID: Int64, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT length(\(tables.payload)) FROM \(tables.table) WHERE \(tables.id) = ?"),
            arguments: [recordID]
        ) ?? 0
    }
}
