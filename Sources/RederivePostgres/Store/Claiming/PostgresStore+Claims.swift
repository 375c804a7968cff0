#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL
import Synchronization

/// Claiming batches of stale records, shared by every worker process of every host.
///
/// A claim marks records with the lease's token (`claimed_by`), picking them with `FOR UPDATE SKIP
/// LOCKED` so that concurrent claims never wait for each other nor take the same record. Each
/// process moves a cursor through the ids; when it reaches the end it looks again from the start,
/// for records freed meanwhile. Before the cursor's records, each claim takes those whose lease is
/// gone (expired, or its process ended; see ``reapLeases(_:_:)``), found through the index of claims
/// wherever they stand (``goneClaimants(_:_:)``; looked for once per poll interval, and with every claim
/// while some are left): a dead worker's records are derived by the next claims of the live ones, not
/// once their cursors come round again at the end of the run. While
/// other workers still hold stale records, it waits for them rather than ending: if they die, their
/// leases expire and their records come back.
/// Waiting, it watches only the records the others hold (found through the index of claims), never
/// the whole table again: a pass over a table of a million records costs the server seconds.
extension PostgresStore {
    /// How often, at most, a worker with nothing to claim looks again while others still hold records;
    /// more often with a short lease, so that an expired lease's records are taken over within about
    /// a sixth of the lease after it expires.
    static let claimPollInterval: Duration = .milliseconds(500)

    /// Each claim is a transaction of several statements on the server: larger claims than in-process
    /// ones spread its fixed cost over more records. The run's byte limit still bounds a claim's payloads.
    public var preferredClaimSize: Int { 128 }

    /// A commit locks only the rows it writes, not the database, and costs round trips to the server
    /// whatever its size: half a second (pt-archiver's chunk time) spreads that cost over many records,
    /// while a transaction stays short enough that the rows an app updates wait for it only briefly.
    public var preferredBatchDuration: Duration { .milliseconds(500) }

    /// How often a worker looks again for records to take over, when waiting or claiming.
    static func pollInterval(_ lease: WorkerLease) -> Duration {
        min(claimPollInterval, lease.duration / 6)
    }

    /// Whether this process's next claim should reap expired leases: at most once per `interval`, so
    /// that busy workers do not scan for expired leases with every claim, yet an expired lease's
    /// records are freed within `interval` of its expiry by any worker still claiming.
    func reapIsDue(every interval: Duration) -> Bool {
        lastReaped.withLock { Self.isDue(since: &$0, every: interval) }
    }

    /// Whether a claim of `key` should look for records of leases that are gone: at most once per
    /// `interval`, so that busy workers do not walk the index of claims with every claim, and with
    /// every claim while records found before are left to take.
    func orphanLookIsDue(_ key: ClaimPositionKey, every interval: Duration) -> Bool {
        lastOrphanLook.withLock { Self.isDue(since: &$0[key], every: interval) }
    }

    /// Whether something last done at `last` (never, when nil) is due again `interval` later; when it
    /// is, `last` becomes `now`.
    static func isDue(
        since last: inout ContinuousClock.Instant?, every interval: Duration, at now: ContinuousClock.Instant = .now
    ) -> Bool {
        if let previous = last, previous.duration(to: now) < interval { return false }
        last = now
        return true
    }

    /// Claims stale records that no live lease holds (`FOR UPDATE SKIP LOCKED`) and marks them with the
    /// lease's token; records a dead lease held are taken first.
    public func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord] {
        let key = ClaimPositionKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        while true {
            let position = claimPositions.withLock { $0[key] } ?? .after(nil)
            let outcome: ClaimOutcome
            do {
                let skipped = skippedRecords.withLock { $0[key] } ?? SkippedRecords()
                outcome = try await claimRetrying(plan, position, skipped, limit: limit, byteLimit: byteLimit, lease: lease)
            } catch is CancellationError {
                return []
            }
            skippedRecords.withLock { $0[key] = outcome.skipped }
            if !outcome.records.isEmpty {
                if case .after = position, let cursor = outcome.cursor { claimPositions.withLock { $0[key] = .after(cursor) } }
                return outcome.records
            }
            if outcome.retry { continue }
            // The fresh lane goes on from where its claims reached, as new records come last: looking
            // from the first record again, or waiting for what others hold, would make every look that
            // finds nothing a pass over the table. Its owner starts it from the first record again
            // (``restartClaims(_:lease:)``) when it sweeps for records written behind that point.
            if plan.lane == .fresh { return [] }
            if case .after(_?) = position {
                // The end of the ids: look again from the start, for records freed meanwhile.
                claimPositions.withLock { $0[key] = nil }
                continue
            }
            guard !outcome.heldByOthers.isEmpty else {
                claimPositions.withLock { $0[key] = nil }
                return []
            }
            // Nothing is free: what the others hold is all that can still come free in this run.
            claimPositions.withLock { $0[key] = .watching(outcome.heldByOthers) }
            do {
                try await Task.sleep(for: Self.pollInterval(lease))
            } catch {
                return []
            }
        }
    }

    /// The longest a claim may wait for the server before its connection is closed and the claim
    /// tried again: a claim cut off from the server would otherwise wait for ever.
    static func claimDeadline(_ lease: WorkerLease) -> Duration {
        max(lease.duration, .seconds(5))
    }

    /// ``claimOnce(_:_:_:limit:byteLimit:lease:)``; a claim whose connection failed (reset, its session
    /// ended by the server, or no answer by the deadline) was rolled back, and throws a transient outage
    /// error, which the run's `TransientRetry` waits out: the one loop that waits for the database.
    /// Tried again, the claim first reads whether the lease is still held: when it was taken over
    /// meanwhile, the claim says so, and the run takes a new lease and rejoins its run.
    private func claimRetrying(
        _ plan: RunPlan, _ position: ClaimPosition, _ skipped: SkippedRecords, limit: Int, byteLimit: Int, lease: WorkerLease
    ) async throws -> ClaimOutcome {
        do {
            return try await claimOnce(plan, position, skipped, limit: limit, byteLimit: byteLimit, lease: lease)
        } catch let fault as ConnectionFault {
            throw fault.outage
        }
    }

    private struct ClaimOutcome: Sendable {
        var records: [PendingRecord] = []
        /// Where the cursor stands after `records`; nil when it stays where it was.
        var cursor: Int64?
        /// The records of this pipeline other workers hold, when nothing was claimed.
        var heldByOthers: [Int64] = []
        /// Whether every record picked had been derived meanwhile and was given back: claim again.
        var retry = false
        /// The stale records the claim's picks skipped, locked by another transaction: for the next claims.
        var skipped = SkippedRecords()
    }

    /// One claiming transaction: checks the lease is still there, reaps expired ones when due, takes
    /// over records whose lease is gone, then records an earlier claim skipped that are free now,
    /// marks up to `limit` records in all, notes the stale records its picks skipped (locked by a
    /// transaction still open), reads what deriving them needs (their payloads only when a processor
    /// that reads one may run), and gives back those beyond `byteLimit`.
    private func claimOnce(
        _ plan: RunPlan, _ position: ClaimPosition, _ skipped: SkippedRecords, limit: Int, byteLimit: Int, lease: WorkerLease
    ) async throws -> ClaimOutcome {
        if isAbandoned(lease) { throw leaseLost(lease) }
        let key = ClaimPositionKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        let tables = PostgresPipelineTables(plan.pipeline)
        let reader = PostgresPendingReader(plan: plan, tables: tables, payloadColumn: try await payloadColumn(tables), statements: statements)
        let logger = self.logger
        let outcome = try await watchedTransaction("claim records in", within: Self.claimDeadline(lease), cancelled: .giveUp) { connection in
            // Read, not renewed: the heartbeat renews. Writing the lease's row here would hold its lock
            // to the end of the claim, and this process's other claims, commits and heartbeat would
            // queue behind it.
            guard try await Self.isHeld(lease, connection, logger) else { throw self.leaseLost(lease) }
            let reaping = self.reapIsDue(every: Self.pollInterval(lease))
            if reaping {
                try await Self.reapLeases(connection, logger, sparing: lease)
            }
            // Records of leases that are gone first: behind the cursor, they would wait for the end of the ids.
            var adopted: [Int64] = []
            if self.orphanLookIsDue(key, every: Self.pollInterval(lease)) || reaping {
                var orphaned: [Int64] = []
                let gone = try await Self.goneClaimants(connection, logger)
                if !gone.isEmpty {
                    orphaned = try await Self.records(of: plan, claimedBy: gone, connection, logger)
                    if !orphaned.isEmpty {
                        let adopt = Self.orphanedPick(plan, orphaned, claimedBy: gone, limit: limit, lease: lease)
                        adopted = try await self.statements.run(adopt, on: connection, logger: logger).map { row in
                            try row.makeRandomAccess()[0].decode(Int64.self)
                        }
                    }
                }
                // Some are left when more were found than one claim takes, or another transaction locked
                // them: the next claim looks again.
                if orphaned.count > adopted.count { self.lastOrphanLook.withLock { $0[key] = nil } }
            }
            // Then records an earlier claim skipped, locked then by a transaction that has ended since:
            // a cut-off worker's claim, rolled back behind every cursor when the server ended its session.
            // Looked at when due, with what the picks skipped since (``SkippedRecords``).
            let checking = skipped.checkIsDue(every: Self.pollInterval(lease))
            let waiting = checking ? skipped.waiting : []
            var retaken: [FreePick] = []
            if !waiting.isEmpty, adopted.count < limit {
                let retake = FreePick.statement(plan, .watching(waiting), limit: limit - adopted.count, lease: lease)
                retaken = try await self.statements.run(retake.statement, on: connection, logger: logger).map(retake.columns.freePick)
            }
            var ranged: [FreePick] = []
            var scanned: SkippedRecords.Scan?
            let rangeLimit = limit - adopted.count - retaken.count
            if rangeLimit > 0 {
                let free = FreePick.statement(plan, position, limit: rangeLimit, lease: lease)
                ranged = try await self.statements.run(free.statement, on: connection, logger: logger).map(free.columns.freePick)
                scanned = SkippedRecords.Scan(position, picked: ranged.map(\.pick.recordID), limit: rangeLimit)
            }
            let freed = retaken + ranged
            var stillSkipped = skipped.looked(at: scanned)
            // A claim that found nothing looks now: what is skipped is then what there is to wait for.
            if checking || (adopted.isEmpty && freed.isEmpty) {
                stillSkipped = stillSkipped.updated(
                    locked: try await Self.lockedByOthers(plan, among: stillSkipped.waiting, looked: stillSkipped.unchecked, lease, connection, logger)
                )
            }
            // The picks read each record in their snapshot. A commit or a payload written since would have
            // changed the record's row, which stays locked until this claim ends: a row locked as the
            // snapshot saw it is known as it is now. One that changed in between is read again with a
            // fresh snapshot (PostgreSQL rechecks a locked row, not the stamps joined to it), and so is
            // every record taken over from a gone lease, picked without regard to its stamps. A command
            // that changes stamps alone (an invalidation, a rollback) could as well land just after.
            let readAgain = adopted + freed.filter { !$0.asRead }.map(\.pick.recordID)
            guard !adopted.isEmpty || !freed.isEmpty else {
                // The fresh lane waits for nothing: it looks again when the store next signals.
                if plan.lane == .fresh { return ClaimOutcome(skipped: stillSkipped) }
                // Records locked by a transaction still open come free when it ends: wait for them as
                // for those the others hold.
                let held = try await Self.heldByOthers(plan, lease, connection, logger)
                return ClaimOutcome(heldByOthers: held + stillSkipped.waiting, skipped: stillSkipped)
            }
            var checked = freed.filter(\.asRead).map(\.pick)
            if !readAgain.isEmpty {
                var recheck = SQLStatement()
                let fresh = PendingColumns(plan, &recheck)
                recheck.sql = """
                    SELECT r.record_id, r.generation, \(fresh.expressions.joined(separator: ", "))
                    FROM rederive_records r \(fresh.join)
                    WHERE r.source = \(recheck.bind(plan.pipeline.table)) AND r.record_id = ANY(\(recheck.bind(readAgain)))
                    """
                checked += try await self.statements.run(recheck, on: connection, logger: logger).map(fresh.pick)
            }
            // Records that are no longer stale are given back below.
            checked.sort { $0.recordID < $1.recordID }
            let picked = checked.filter { !$0.staleProcessors.isEmpty }
            // The records stay locked until this transaction ends, so a payload written meanwhile
            // waits for it: each payload read here belongs to the generation just returned.
            let kept = try await reader.read(picked, byteLimit: byteLimit, connection, logger)
            let leftForRoom = picked[kept.count...].map(\.recordID)
            let unclaimed = checked.filter { $0.staleProcessors.isEmpty }.map(\.recordID) + leftForRoom
            if !unclaimed.isEmpty {
                var giveBack = SQLStatement()
                giveBack.sql = """
                    UPDATE rederive_records SET claimed_by = NULL WHERE source = \(giveBack.bind(plan.pipeline.table))
                    AND record_id = ANY(\(giveBack.bind(unclaimed)))
                    """
                try await connection.run(giveBack, logger: logger)
            }
            guard !kept.isEmpty else { return ClaimOutcome(retry: true, skipped: stillSkipped) }
            // Past the last record kept of those after it, but never past one given back for want of
            // room, which may be a taken-over record behind it.
            var cursor = kept.map(\.recordID).filter(Set(ranged.map(\.pick.recordID)).contains).max()
            if let first = leftForRoom.min(), first - 1 < cursor ?? .max {
                cursor = first - 1
            }
            return ClaimOutcome(records: kept, cursor: cursor, skipped: stillSkipped)
        }
        return outcome
    }

    /// The stale records among `ids`, and among those the picks `looked` at, that no one has claimed:
    /// rows another transaction locks (a claim under way, or a claim of a worker cut off, whose
    /// session the server has not ended yet), which picks skip. Their claims are not visible until
    /// that transaction commits, and this process's own claims read as claimed already, or as
    /// committed in this run. A record an earlier claim gave back for want of room is found too, and
    /// taken by a later claim as the skipped ones are.
    private static func lockedByOthers(
        _ plan: RunPlan, among ids: [Int64], looked: SkippedRecords.Looked, _ lease: WorkerLease,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64] {
        var found: [Int64] = []
        let candidates = Array(Set(ids).union(looked.ids))
        if !candidates.isEmpty {
            found += try await unclaimedStale(plan, lease, connection, logger) { statement in
                "r.record_id = ANY(\(statement.bind(candidates)))"
            }
        }
        for range in looked.ranges {
            found += try await unclaimedStale(plan, lease, connection, logger) { statement in
                var condition = "r.record_id > \(statement.bind(range.after ?? Int64.min))"
                if let through = range.through { condition += " AND r.record_id <= \(statement.bind(through))" }
                return condition
            }
        }
        return Array(Set(found))
    }

    /// The stale records of the plan's pipeline that match `where` and that no one claimed.
    private static func unclaimedStale(
        _ plan: RunPlan, _ lease: WorkerLease, _ connection: PostgresConnection, _ logger: Logger,
        where range: (inout SQLStatement) -> String
    ) async throws -> [Int64] {
        var statement = SQLStatement()
        let condition = staleCondition(plan, &statement)
        let source = statement.bind(plan.pipeline.table)
        let token = statement.bind(lease.token)
        let matching = range(&statement)
        statement.sql = """
            SELECT r.record_id FROM rederive_records r \(condition.join)
            WHERE r.source = \(source) AND r.claimed_by IS NULL AND \(matching)
            AND coalesce(r.committed_run <> (SELECT l.run_id FROM rederive_leases l WHERE l.token = \(token)), true)
            AND (\(condition.any))
            """
        return try await connection.run(statement, logger: logger).collect { try $0.decode(Int64.self) }
    }

    /// The tokens that records are claimed by and that no lease holds any more: a killed or cut-off
    /// worker's, reaped. Found by skipping through the index of claims one token at a time, which
    /// costs the server a probe per worker whatever the table's size or statistics.
    static func goneClaimants(_ connection: PostgresConnection, _ logger: Logger) async throws -> [String] {
        try await connection.query("""
            WITH RECURSIVE claimant AS (
                (SELECT claimed_by FROM rederive_records WHERE claimed_by IS NOT NULL ORDER BY claimed_by LIMIT 1)
                UNION ALL
                SELECT (SELECT r.claimed_by FROM rederive_records r WHERE r.claimed_by > c.claimed_by ORDER BY r.claimed_by LIMIT 1)
                FROM claimant c WHERE c.claimed_by IS NOT NULL
            )
            SELECT claimed_by FROM claimant WHERE claimed_by IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM rederive_leases l WHERE l.token = claimant.claimed_by)
            """, logger: logger).collect { try $0.decode(String.self) }
    }

    /// The records of the plan's pipeline claimed by `tokens`, through the index of claims alone: a
    /// condition on the table's name too could lead the planner to the primary key, a pass over every id.
    private static func records(
        of plan: RunPlan, claimedBy tokens: [String], _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64] {
        var statement = SQLStatement()
        statement.sql = "SELECT source, record_id FROM rederive_records WHERE claimed_by = ANY(\(statement.bind(tokens)))"
        return try await connection.run(statement, logger: logger).collect { try $0.decode((String, Int64).self) }
            .filter { $0.0 == plan.pipeline.table }.map(\.1)
    }

    /// Marks up to `limit` of `ids` that are still claimed by `tokens`, leases that are gone. Stale or
    /// not: those that are not stale for this plan are given back with the claim's other records that
    /// are not, so that no worker waits for them.
    private static func orphanedPick(
        _ plan: RunPlan, _ ids: [Int64], claimedBy tokens: [String], limit: Int, lease: WorkerLease
    ) -> SQLStatement {
        var pick = SQLStatement()
        let source = pick.bind(plan.pipeline.table)
        pick.sql = """
            WITH picked AS (
                SELECT r.record_id FROM rederive_records r
                WHERE r.source = \(source) AND r.record_id = ANY(\(pick.bind(ids))) AND r.claimed_by = ANY(\(pick.bind(tokens)))
                ORDER BY r.record_id LIMIT \(pick.bind(Int64(limit)))
                FOR UPDATE OF r SKIP LOCKED
            )
            UPDATE rederive_records r SET claimed_by = \(pick.bind(lease.token)) FROM picked
            WHERE r.source = \(source) AND r.record_id = picked.record_id
            RETURNING r.record_id
            """
        return pick
    }

    /// The records of the plan's pipeline that other workers' leases hold, through the partial index
    /// of claims.
    private static func heldByOthers(
        _ plan: RunPlan, _ lease: WorkerLease, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT record_id FROM rederive_records WHERE claimed_by IS NOT NULL
            AND claimed_by <> \(statement.bind(lease.token)) AND source = \(statement.bind(plan.pipeline.table))
            """
        return try await connection.run(statement, logger: logger).collect { try $0.decode(Int64.self) }
    }
}
#endif
