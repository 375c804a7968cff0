#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL

/// A stale record a claim marked as its own, with what ``PendingColumns`` says of it as the pick's
/// snapshot saw it.
struct FreePick {
    let pick: PendingPick
    /// Whether the row the claim locked is the version the snapshot read. When it is not, a commit or
    /// a payload written changed the record after the snapshot (the lock waits for neither, it finds
    /// the newest version), and the stamps read with the old one may no longer hold.
    let asRead: Bool

    /// Marks up to `limit` stale records after the cursor (or among those watched) that no one holds,
    /// and returns each with ``columns``, then whether its row is as read (`asRead`): the row's `xmin`
    /// against that of the version the statement's snapshot sees. PostgreSQL evaluates a locked row's
    /// columns again on its newest version, while a subquery keeps reading the snapshot.
    ///
    /// The marking looks the picked rows up by key: joined with them instead, the planner read the
    /// whole table into a hash once a claim's rows were a few percent of it.
    static func statement(
        _ plan: RunPlan, _ position: ClaimPosition, limit: Int, lease: WorkerLease
    ) -> (statement: SQLStatement, columns: PendingColumns) {
        var pick = SQLStatement()
        let columns = PendingColumns(plan, &pick)
        let source = pick.bind(plan.pipeline.table)
        let token = pick.bind(lease.token)
        let range = switch position {
        case .after(let cursor): "r.record_id > \(pick.bind(cursor ?? Int64.min))"
        case .watching(let ids): "r.record_id = ANY(\(pick.bind(ids)))"
        }
        let named = columns.expressions.enumerated().map { "\($1) AS c\($0)" }
        pick.sql = """
            WITH picked AS (
                SELECT r.record_id, r.generation, \(named.joined(separator: ", ")),
                    r.xmin = (SELECT o.xmin FROM rederive_records o WHERE o.source = r.source AND o.record_id = r.record_id) AS as_read
                FROM rederive_records r \(columns.join)
                WHERE r.source = \(source) AND r.claimed_by IS NULL AND \(range)
                AND coalesce(r.committed_run <> (SELECT l.run_id FROM rederive_leases l WHERE l.token = \(token)), true)
                AND (\(columns.anyStale))
                ORDER BY r.record_id LIMIT \(pick.bind(Int64(limit)))
                FOR UPDATE OF r SKIP LOCKED
            ), marked AS (
                UPDATE rederive_records r SET claimed_by = \(token)
                WHERE r.source = \(source) AND r.record_id = ANY(ARRAY(SELECT record_id FROM picked))
            )
            SELECT * FROM picked
            """
        return (pick, columns)
    }
}

extension PendingColumns {
    /// A row of ``FreePick/statement(_:_:limit:lease:)``.
    func freePick(_ row: PostgresRow) throws -> FreePick {
        FreePick(pick: try pick(row), asRead: try row.makeRandomAccess()[expressions.count + 2].decode(Bool.self))
    }
}
#endif
