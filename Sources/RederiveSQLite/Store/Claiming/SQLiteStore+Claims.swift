import GRDB
import Rederive
import RederiveSQL
import Synchronization

/// Which lease's claims of which pipeline a cursor belongs to.
struct ClaimCursorKey: Hashable, Sendable {
    let token: String
    let pipeline: String
    /// Each lane of stale records has a cursor of its own.
    var lane: StaleLane = .all
}

/// Claiming batches of stale records for the workers of this process.
///
/// The lease makes this process the only one deriving the database, so claims need no rows of their
/// own: a cursor per lease and pipeline hands out pending records in id order, each exactly once per
/// run. A worker's payloads are read on a reader connection of its own, outside the cursor's lock.
extension SQLiteStore {
    /// Hands out the next pending records after this lease's cursor, then reads their payloads on a
    /// reader connection of the calling worker's own.
    public func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord] {
        let key = ClaimCursorKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        while true {
            let records: [PendingRecord]
            switch try await pick(plan, key: key, limit: limit, byteLimit: byteLimit) {
            case .nothing:
                return []
            case .read(let read):
                records = read
            case .picked(let picked):
                records = try await readPayloads(of: picked, plan)
            case .projected(let read, let picked, let judged):
                records = picked.isEmpty ? read : try await (read + readPayloads(of: picked, plan, judged: judged)).sorted {
                    $0.recordID < $1.recordID
                }
            }
            // Records deleted since they were picked are simply gone; claim further when all were.
            if !records.isEmpty { return records }
        }
    }

    /// Forgets where the lease's claims reached, when the lease ends.
    func forgetClaims(of lease: WorkerLease) {
        claimCursors.withLock { cursors in
            cursors = cursors.filter { $0.key.token != lease.token }
        }
        claimShapes.withLock { shapes in
            shapes = shapes.filter { $0.key.token != lease.token }
        }
    }

    /// What one pick found after the cursor.
    private enum Picked {
        /// Nothing is pending after the cursor.
        case nothing
        /// Records to read further, in a transaction of their own.
        case picked([PendingPick])
        /// Records read whole by the pick itself, as when no claimed record can read its payload.
        case read([PendingRecord])
        /// Records read whole by the pick itself, those a current projection serves among them
        /// (``ProjectionPickRead``), and records whose payloads are left to read, with the reason
        /// their projection does not serve.
        case projected([PendingRecord], picked: [PendingPick], judged: [Int64: ProjectionFallback])
    }

    /// Picks the next pending records after the lease's cursor and moves the cursor past them. The
    /// cursor's lock is held during the index query, so two workers never pick the same record.
    ///
    /// When no processor the claims ask about reads the payload, the pick reads each record whole in
    /// the same query (its generation, and the stored values dependents read, ``PayloadFreeRead``):
    /// a claim then costs one statement rather than two per record. When a plan's payload processors
    /// may derive from projections, the pick reads each record's projection too, and hands out whole
    /// the records it serves (``ProjectionPickRead``).
    private func pick(_ plan: RunPlan, key: ClaimCursorKey, limit: Int, byteLimit: Int) async throws -> Picked {
        let tables = PipelineTables(plan.pipeline)
        return try await read { db in
            // The counts at the first claim say which processors each record must be asked about; not
            // for the fresh lane, whose claims go on while new records come, stale for every processor.
            let shape = try self.claimShapes.withLock { shapes in
                if let shape = shapes[key] { return shape }
                let shape = plan.lane == .fresh ? PendingShape(plan) : try Self.pendingShape(plan, db)
                shapes[key] = shape
                return shape
            }
            let query = Self.pendingQuery(plan, tables, limit: true, shape: shape)
            let whole = query.mayReadPayload ? nil : PayloadFreeRead(plan, tables)
            let projected = query.mayReadPayload && plan.readsProjections ? ProjectionPickRead(plan, tables) : nil
            let sql = if let whole {
                whole.sql(picking: query.sql)
            } else if let projected {
                projected.sql(picking: query.sql)
            } else {
                "SELECT q.*, (SELECT length(t.\(tables.payload)) FROM \(tables.table) t WHERE t.\(tables.id) = q.record_id) FROM (\(query.sql)) q"
            }
            return try self.claimCursors.withLock { cursors in
                let rows = try Row.fetchAll(
                    db.cachedStatement(sql: sql),
                    arguments: query.arguments(cursor: cursors[key], limit: limit) + (projected?.joinArguments ?? [])
                )
                guard let last = rows.last else { return .nothing }
                if let whole {
                    cursors[key] = last[0]
                    return .read(rows.map { whole.record(query.pick($0), $0, at: query.columnCount) })
                }
                if let projected {
                    var read: [PendingRecord] = []
                    var picks: [PendingPick] = []
                    var judged: [Int64: ProjectionFallback] = [:]
                    var bytes = 0
                    for row in rows where (read.isEmpty && picks.isEmpty) || bytes < byteLimit {
                        let pick = query.pick(row)
                        switch try projected.read(pick, row, at: query.columnCount, db) {
                        case .whole(let record):
                            read.append(record)
                        case .payload(let reason, let length):
                            picks.append(pick)
                            judged[pick.recordID] = reason
                            bytes += length
                        }
                        cursors[key] = pick.recordID
                    }
                    return .projected(read, picked: picks, judged: judged)
                }
                var picks: [PendingPick] = []
                var bytes = 0
                for row in rows where picks.isEmpty || bytes < byteLimit {
                    let pick = query.pick(row)
                    if pick.readsPayload {
                        bytes += row[row.count - 1] as Int? ?? 0
                    }
                    picks.append(pick)
                }
                if let last = picks.last {
                    cursors[key] = last.recordID
                }
                return .picked(picks)
            }
        }
    }

    /// Reads the picked records' payloads, each with the generation it belongs to, in one read
    /// transaction; `judged` says why their projections do not serve, when the pick read them. A
    /// record whose payload is on a damaged page is handed out to fail, and the others are read again
    /// in a transaction of their own, since SQLite fails the end of the one that met the damage.
    private func readPayloads(
        of picks: [PendingPick], _ plan: RunPlan, judged: [Int64: ProjectionFallback]? = nil
    ) async throws -> [PendingRecord] {
        let tables = PipelineTables(plan.pipeline)
        var damaged: Set<Int64> = []
        while true {
            do {
                return try await read { [damaged] db in
                    try PendingReader(plan, tables, db).read(picks, judged: judged, knownDamaged: damaged)
                }
            } catch let error as RederiveError {
                guard let damage = error.underlying as? PendingReader.DamagedPayload, damaged.insert(damage.recordID).inserted else {
                    throw error
                }
            }
        }
    }
}
