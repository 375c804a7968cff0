#if PostgreSQL
import PostgresNIO
import Rederive
import Synchronization

/// The signals of a PostgreSQL server's health that throttles read: a query's boolean, and how far
/// its streaming standbys lag behind in replaying.
extension PostgresStore: HealthSignals {
    /// Runs `sql` in a read-only transaction, given 5 s at most; it must return one row of one boolean.
    public func conditionHolds(_ sql: String) async throws -> Bool {
        let logger = self.logger
        let location = self.location
        return try await transaction("run the throttle's query on", snapshot: true) { connection in
            try await connection.query("SET LOCAL statement_timeout = '5s'", logger: logger)
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect { row -> (Int, Bool?) in
                (row.count, (try? row.decode(Bool?.self)) ?? nil)
            }
            guard rows.count == 1, let (columns, value) = rows.first, columns == 1, let value else {
                throw RederiveError(
                    .invalidArgument,
                    "the query \(sql) must return one row of one boolean; on \(location) it returned \(rows.count) rows of \(rows.first?.0 ?? 0) columns"
                        + (rows.count == 1 ? ", or not a boolean" : "")
                )
            }
            return value
        }
    }

    /// None: PostgreSQL checkpoints its log itself.
    public func uncheckpointedLogSize() async throws -> Int? { nil }

    /// The replay lag of the most lagging standby in `pg_stat_replication`: its own `replay_lag`, or,
    /// when more, how long ago the primary's log first stood beyond the standby's replay position as
    /// this process saw it. The server's `replay_lag` stops growing while a standby replays nothing
    /// (replay paused, or stuck behind a conflict), which the positions this process saw still tell.
    /// Nil when no standby is connected. Reading a standby's position needs `pg_monitor` (or
    /// `pg_read_all_stats`).
    public func replicaLag() async throws -> Duration? {
        let logger = self.logger
        let (current, standbys) = try await withConnection("read the replication lag of") { connection in
            let current = try await connection.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint", logger: logger)
                .collect { try $0.decode(Int64.self) }.first ?? 0
            let standbys = try await connection.query("""
                SELECT application_name, pg_wal_lsn_diff(replay_lsn, '0/0')::bigint, extract(epoch FROM replay_lag)::float8
                FROM pg_stat_replication
                """, logger: logger).collect { try $0.decode((String, Int64?, Double?).self) }
            return (current, standbys)
        }
        let now = ContinuousClock.now
        let positions = walPositions.withLock { positions in
            positions.append((now, current))
            // An hour of positions is enough to time any lag a throttle waits out.
            positions.removeAll { now - $0.at > .seconds(3600) }
            if positions.count > 10_000 { positions.removeFirst(positions.count - 10_000) }
            return positions
        }
        guard !standbys.isEmpty else { return nil }
        var worst: Duration = .zero
        for (name, replayed, reported) in standbys {
            guard let replayed else {
                throw RederiveError(
                    .database,
                    "cannot read how far standby \(name) of \(location) has replayed: the role needs pg_monitor (or pg_read_all_stats)"
                )
            }
            var lag = reported.map { Duration.milliseconds(Int64($0 * 1000)) } ?? .zero
            if let behind = positions.first(where: { $0.position > replayed }) {
                lag = max(lag, now - behind.at)
            }
            worst = max(worst, lag)
        }
        return worst
    }
}
#endif
