#if PostgreSQL
import PostgresNIO
import Rederive
import Synchronization

/// Telling watchers that records may have become stale: a statement trigger on each pipeline's table
/// notifies channel `rederive_changes` once per statement that writes payloads, and
/// `invalidate` once per call; a watcher listens on a connection of its own.
extension PostgresStore: ChangeSignaling {
    /// The channel rederive's triggers notify, with the table's name as payload.
    static let changeChannel = "rederive_changes"

    /// Yields for each notification on `rederive_changes`, on a connection of the stream's own. While
    /// that connection cannot be made or is lost, it tries again after a wait that doubles up to
    /// `interval` times 100 (at least 5 s), and yields once each time it is back, since notifications
    /// sent meanwhile are lost.
    ///
    /// The connection's loss is an outage as much as a statement's failed connection is (a restart
    /// that finds the watcher idle meets no statement): it begins one, logged once with the pool's,
    /// and the connection made again ends it, unless a statement reached the server first.
    public func changeSignals(checkingEvery interval: Duration) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let location = self.location
        let logger = self.logger
        let outage = self.outage
        let ceiling = max(interval * 100, .seconds(5))
        let task = Task {
            var pause = Duration.milliseconds(100)
            var connected = false
            while !Task.isCancelled {
                var reason: String? = "the server closed the connection"
                let attempt = ContinuousClock.now
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: PostgresConnection.Configuration(
                            host: location.host, port: location.port, username: location.user,
                            password: location.password, database: location.database, tls: try Self.connectionTLS(location)
                        ),
                        id: 1, logger: logger
                    )
                    defer { Task { try? await connection.close() } }
                    outage.reached(since: attempt)
                    let reconnected = connected
                    connected = true
                    pause = .milliseconds(100)
                    try await connection.listen(on: Self.changeChannel) { notifications in
                        if reconnected { continuation.yield() }
                        for try await _ in notifications {
                            continuation.yield()
                        }
                    }
                } catch {
                    let state = ConnectionFailure.sqlState(of: error)
                    if let state, ConnectionFailure.refuses(sqlState: state) {
                        // A database dropped or renamed: every statement ends with it, the watcher too.
                        let reason = ConnectionFailure.reason(sqlState: state) ?? ConnectionFailure.reason(lost: error)
                        outage.refused(RederiveError(.databaseRefused, "cannot use \(location): \(reason)"))
                        break
                    }
                    // Ended for being idle (idle_session_timeout): no outage; connect again at once.
                    reason = state.map(ConnectionFailure.endedIdle(sqlState:)) == true ? nil : ConnectionFailure.reason(lost: error)
                }
                if Task.isCancelled { break }
                // The connection ended or could not be made: notifications sent meanwhile are lost.
                if connected { continuation.yield() }
                guard let reason else { continue }
                outage.connectionFailed(reason)
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, ceiling)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The store logs each outage once when it begins and once when it ends.
    public var logsOutages: Bool { true }

    /// The records whose stamp is current at another version than the processor's, for the plan's
    /// processor that has most: from the counts kept per processor and version for `status`
    /// (`rederive_counts` and its pending deltas), a few rows however many records there are.
    public func backlogCount(_ plan: RunPlan) async throws -> Int? {
        let logger = self.logger
        let counts = try await withConnection("read") { connection in
            try await Self.keptCounts(plan.pipeline, connection, logger)
        }
        return plan.selection.map { counts.backlog[$0] }.max() ?? 0
    }

    /// The highest id in `rederive_records` of the pipeline's table, from the primary key's last entry.
    public func lastRecordID(of pipeline: Pipeline) async throws -> Int64? {
        let logger = self.logger
        return try await withConnection("read") { connection in
            var statement = SQLStatement()
            statement.sql = "SELECT max(record_id) FROM rederive_records WHERE source = \(statement.bind(pipeline.table))"
            return try await connection.run(statement, logger: logger).collect { try $0.decode(Int64?.self) }.first ?? nil
        }
    }

    /// Forgets where the lease's claims of the plan reached: the next claim looks from the first record.
    /// A claim of a whole run or a backlog that reaches the end of the ids looks again from the first
    /// record by itself; a fresh lane's goes on from where it reached until this is called.
    public func restartClaims(_ plan: RunPlan, lease: WorkerLease) {
        let key = ClaimPositionKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        _ = claimPositions.withLock { $0.removeValue(forKey: key) }
    }

    /// Looks from the first record again (``restartClaims(_:lease:)``): the claim's pick skips what is
    /// not stale through the stamps' index, so a sweep needs no count of where fresh records are.
    public func sweepFreshClaims(_ plan: RunPlan, lease: WorkerLease, lowestInFlight: Int64?) async throws {
        restartClaims(plan, lease: lease)
    }

    /// Starts the run as `startRun(_:lease:)` does: a run shared between processes is counted once,
    /// from the counts kept per processor and version, which cost a few rows.
    public func startWatchRun(_ plans: [RunPlan], lease: WorkerLease, pending: [Int]) async throws -> StartedRun {
        try await startRun(plans, lease: lease)
    }
}
#endif
