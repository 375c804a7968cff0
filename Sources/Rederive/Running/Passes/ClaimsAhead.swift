/// Records that a pass claims ahead of its plan's own, when there are any: a watcher's fresh records
/// (new, rewritten, invalidated) while a backlog drains, so that they join the stream of the backlog's
/// workers and commits rather than wait behind it or compete with it in passes of their own.
///
/// A pass asks before each of its claims, and fills the rest of the claim with the plan's own records.
/// The records returned are evaluated and committed as the plan's own, but ahead of them: the writer
/// commits their results with its next batch, before the results queued earlier. The pass ends when
/// the plan's own claims find nothing, whatever this one would still find.
package protocol ClaimsAhead: Sendable {
    /// Claims up to `limit` records, of `byteLimit` stored payload bytes at most, to derive before the
    /// plan's next; none when none are due. Throws what a claim of the store throws.
    func claim(limit: Int, byteLimit: Int) async throws -> [PendingRecord]

    /// The pass committed `results`: told of every commit, so that it knows which of its records are
    /// still in flight.
    func committed(_ results: [RecordResult])
}
