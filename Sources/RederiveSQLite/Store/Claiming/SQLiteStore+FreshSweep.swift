import GRDB
import Rederive
import RederiveSQL
import Synchronization

/// A watcher's sweep of its fresh lane, bounded by index counts.
///
/// Claiming from the first record probes every record's stamp for every processor: 0.2 s and more for
/// 20,000 records on a loaded machine, during which the backlog's workers wait for their claim.
/// Counting the current stamps and failures at or below an id reads the indexes alone, a few
/// milliseconds. So a sweep first counts, in one read transaction, whether any record at or below
/// where the claims reached (and below the lowest record in flight) lacks a current stamp for some
/// processor of the plan, and has no current failure there either: if none does, the claims go on
/// from there, and looking costs the records after it. Otherwise they start from the first record.
///
/// A record has a current stamp or a current failure for a processor, never both: a commit that
/// records a failure clears the stamp's `current`, one that stamps deletes the failures. So the
/// counts subtract no record twice.
extension SQLiteStore {
    /// Moves the fresh lane's claims back to the highest id at or below which no record is fresh, as
    /// the index counts say: where the claims reached (the last record, for a lane that has not claimed
    /// yet), or just below the lowest record in flight; to the first record when one there is fresh.
    public func sweepFreshClaims(_ plan: RunPlan, lease: WorkerLease, lowestInFlight: Int64?) async throws {
        guard plan.lane == .fresh else {
            restartClaims(plan, lease: lease)
            return
        }
        let key = ClaimCursorKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        let reached = claimCursors.withLock { $0[key] }
        let clean = try await read { db in
            try Self.highestCleanID(plan, reached: reached, lowestInFlight: lowestInFlight, db)
        }
        claimCursors.withLock { cursors in
            // A claim moved the cursor meanwhile (the lane claims one at a time, so only if misused):
            // records it handed out lie beyond `reached`; look from the first record, as without counts.
            guard cursors[key] == reached else {
                cursors[key] = nil
                return
            }
            cursors[key] = clean
        }
    }

    /// The highest id at or below which no record of the plan's table is fresh for any of its
    /// processors: at most `reached` (or the last record when nil) and below `lowestInFlight`; nil
    /// when one is fresh, or the table is empty, and claims start from the first record.
    static func highestCleanID(_ plan: RunPlan, reached: Int64?, lowestInFlight: Int64?, _ db: Database) throws -> Int64? {
        let tables = PipelineTables(plan.pipeline)
        let last = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT max(record_id) FROM rederive_records WHERE source = ?"),
            arguments: [tables.pipeline.table]
        )
        guard var bound = reached ?? last else { return nil }
        if let lowestInFlight { bound = min(bound, lowestInFlight - 1) }
        let records = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM rederive_records WHERE source = ? AND record_id <= ?"),
            arguments: [tables.pipeline.table, bound]
        ) ?? 0
        // The stamps index (whose entries hold the record id) is read rather than the stamps.
        for index in plan.selection {
            let processor = plan.pipeline.processors[index]
            let stamped = try Int.fetchOne(
                db.cachedStatement(sql: """
                    SELECT count(*) FROM rederive_stamps INDEXED BY rederive_stamps_by_version
                    WHERE pipeline = ? AND processor = ? AND current = 1 AND record_id <= ?
                    """),
                arguments: [plan.pipeline.name, processor.name, bound]
            ) ?? 0
            let failed = plan.retryFailed ? 0 : try Int.fetchOne(
                db.cachedStatement(sql: """
                    SELECT count(*) FROM rederive_failures
                    WHERE pipeline = ? AND processor = ? AND version = ? AND current = 1 AND record_id <= ?
                    """),
                arguments: [plan.pipeline.name, processor.name, processor.version, bound]
            ) ?? 0
            if records - stamped - failed > 0 { return nil }
        }
        return bound
    }
}
