import Rederive

/// A record a pending query found: its id and generation, the plan's processors stale for it, and
/// what its dependents need to know of its failures and stamps.
package struct PendingPick: Sendable {
    /// The record's id in its pipeline's table.
    package let recordID: Int64
    /// The generation of its payload when the query read it.
    package let generation: Int64
    /// The plan's processors stale for the record, in the plan's order.
    package let staleProcessors: [Int]
    /// Whether a processor that reads the payload may run for the record (`RunPlan/readsPayload(stale:)`).
    package let readsPayload: Bool
    /// The kind of each current failure that dependents must know of, by processor index.
    package let failures: [Int: FailureKind]
    /// The inputs digest of each dependent's current stamp, by processor index.
    package let consumedDigests: [Int: Int64]
}

/// The columns of a row of a pending query, whatever the store: the record's id and generation, one
/// stale flag per processor asked about, then the kind of each current failure that dependents
/// must know of, then the inputs digest of each dependent's current stamp.
package struct PendingRowLayout: Sendable {
    /// The plan the query serves.
    package let plan: RunPlan
    /// Processors whose stale flags follow the record's id and generation, one column each.
    package let staleFlags: [Int]
    /// Processors whose current failure's kind follows the stale flags, one column each.
    package let failureColumns: [Int]
    /// Dependents whose current stamp's inputs digest follows the failures, one column each.
    package let digestColumns: [Int]
    /// Whether a processor that reads the payload may run for some record: if not for all the
    /// processors asked about, then for no record.
    package let mayReadPayload: Bool

    /// The layout of a query about `staleFlags`, `failureColumns` and `digestColumns` of `plan`.
    package init(_ plan: RunPlan, staleFlags: [Int], failureColumns: [Int], digestColumns: [Int]) {
        self.plan = plan
        self.staleFlags = staleFlags
        self.failureColumns = failureColumns
        self.digestColumns = digestColumns
        mayReadPayload = plan.readsPayload(stale: staleFlags)
    }

    /// The columns of a row.
    package var columnCount: Int { 2 + staleFlags.count + failureColumns.count + digestColumns.count }

    /// What a row says of its record, its cells read by column index: `flag` a stale flag, `text` a
    /// failure's kind (nil when `NULL`), `integer` a digest (nil when `NULL`).
    package func pick(
        recordID: Int64, generation: Int64,
        flag: (Int) throws -> Bool, text: (Int) throws -> String?, integer: (Int) throws -> Int64?
    ) rethrows -> PendingPick {
        var column = 2
        var stale: [Int] = []
        for processor in staleFlags {
            if try flag(column) { stale.append(processor) }
            column += 1
        }
        var failures: [Int: FailureKind] = [:]
        for processor in failureColumns {
            if let kind = try text(column).flatMap(FailureKind.init(rawValue:)) { failures[processor] = kind }
            column += 1
        }
        var digests: [Int: Int64] = [:]
        for processor in digestColumns {
            if let digest = try integer(column) { digests[processor] = digest }
            column += 1
        }
        return PendingPick(
            recordID: recordID, generation: generation, staleProcessors: stale,
            readsPayload: mayReadPayload && plan.readsPayload(stale: stale), failures: failures, consumedDigests: digests
        )
    }
}
