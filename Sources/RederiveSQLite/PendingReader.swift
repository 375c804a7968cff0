import GRDB
import Rederive

/// A record the pending query found: its id, the plan's processors stale for it, and what its
/// dependents need to know of its failures and stamps.
struct PendingPick: Sendable {
    let recordID: Int64
    let staleProcessors: [Int]
    /// Whether a processor that reads the payload may run for the record (``RunPlan/readsPayload(stale:)``).
    let readsPayload: Bool
    let failures: [Int: FailureKind]
    let consumedDigests: [Int: Int64]
}

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
    /// bytes, and always holds a record when one is present.
    func read(_ picks: [PendingPick], byteLimit: Int = .max) throws -> [PendingRecord] {
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
        let inputs = plan.dependencyColumns
        let storedValues = try inputs.isEmpty ? nil : storedValuesStatement(inputs)
        var records: [PendingRecord] = []
        records.reserveCapacity(picks.count)
        var bytes = 0
        for pick in picks where records.isEmpty || bytes < byteLimit {
            let cursor = try Row.fetchCursor(pick.readsPayload ? withPayload : withoutPayload, arguments: [plan.pipeline.table, pick.recordID])
            // A record deleted since it was picked is simply gone.
            guard let row = try cursor.next() else { continue }
            let payload = pick.readsPayload ? SQLiteStore.payloadBytes(row, at: 1) : nil
            let generation: Int64 = row[0]
            bytes += payload?.count ?? 0
            let stored = if let storedValues, plan.needsStoredValues(stale: pick.staleProcessors) {
                try values(of: inputs, pick.recordID, storedValues)
            } else {
                [Int: [DerivedValue]]()
            }
            records.append(PendingRecord(
                recordID: pick.recordID, payload: payload, generation: generation, staleProcessors: pick.staleProcessors,
                payloadRead: pick.readsPayload,
                dependencies: plan.dependencyState(
                    stale: pick.staleProcessors, storedValues: stored, consumedDigests: pick.consumedDigests, failures: pick.failures
                )
            ))
        }
        return records
    }

    private func storedValuesStatement(_ processors: [Int]) throws -> Statement {
        let columns = processors.flatMap { plan.pipeline.processors[$0].columns }.map { SQL.identifier($0.name) }
        return try db.cachedStatement(sql: """
            SELECT \(columns.joined(separator: ", ")) FROM \(tables.destination) WHERE \(tables.destinationID) = ?
            """)
    }

    /// The processors' stored values, by processor; none when the record has no row of derived values.
    private func values(of processors: [Int], _ recordID: Int64, _ statement: Statement) throws -> [Int: [DerivedValue]] {
        guard let row = try Row.fetchOne(statement, arguments: [recordID]) else { return [:] }
        var values: [Int: [DerivedValue]] = [:]
        var column = 0
        for processor in processors {
            let count = plan.pipeline.processors[processor].columns.count
            values[processor] = (column..<column + count).map { DerivedValue(row[$0] as DatabaseValue) }
            column += count
        }
        return values
    }
}
