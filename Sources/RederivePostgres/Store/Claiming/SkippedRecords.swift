#if PostgreSQL
/// The stale records a process's claims skipped because another transaction locked them, with when
/// each was first skipped.
///
/// A pick skips locked rows (`SKIP LOCKED`) and its cursor moves past them. Most are another worker's
/// claim under way, claimed once it commits; but a claim of a worker cut off from the network holds
/// its rows until the server ends its session, and then rolls back: those records are free again,
/// behind every cursor, and would wait for the end of the ids. The next claims look at every skipped
/// record again and take those that came free. A record locked for longer than ``patience`` (by a
/// transaction that is no worker's, say) is no longer waited for: the cursors find it when they come
/// round again, or the next run does.
///
/// Looking for what the picks skipped, and again at what was skipped, costs the server a statement
/// each, planned anew, and almost every record they find is a live worker's claim under way, which
/// the next look finds claimed. So the picks' ranges are gathered, and looked at together at most once
/// per ``checkIsDue(every:at:)`` interval: a cut-off claim's rows stay locked for far longer than that.
struct SkippedRecords: Sendable {
    /// How long the claims look again at a record that stays locked: longer than the server takes to
    /// end a cut-off worker's session (30 s idle in its transaction, or its link found dead).
    static let patience: Duration = .seconds(90)
    /// The most records remembered, so that memory stays bounded whatever the table.
    static let limit = 10_000

    /// The most ranges of ids gathered between two looks; more, and the next claim looks at once.
    static let rangeLimit = 8

    private var firstSkipped: [Int64: ContinuousClock.Instant] = [:]
    /// What the picks looked at since the last look for what they skipped.
    private(set) var unchecked = Looked()
    /// When the claims last looked for what their picks skipped.
    private var lastChecked: ContinuousClock.Instant?

    /// Whether the next claim should look for the records its picks skipped, and again at those
    /// skipped before: at most once per `interval`, and at once when the picks' ranges grew many.
    func checkIsDue(every interval: Duration, at now: ContinuousClock.Instant = .now) -> Bool {
        guard let lastChecked else { return true }
        return now - lastChecked >= interval || unchecked.ranges.count > Self.rangeLimit
    }

    /// These records, with what a pick looked at gathered for the next look.
    func looked(at scan: Scan?) -> SkippedRecords {
        var next = self
        if let scan { next.unchecked.add(scan) }
        return next
    }

    /// The records to look at again, in id order: those skipped for less than ``patience``.
    func waiting(at now: ContinuousClock.Instant = .now) -> [Int64] {
        firstSkipped.filter { now - $0.value < Self.patience }.keys.sorted()
    }

    /// The records to look at again now.
    var waiting: [Int64] { waiting() }

    /// These records, after a claim found `locked` still locked: those are kept with when they were
    /// first skipped, and the others are forgotten, but for those no longer waited for, which are
    /// remembered for another ``patience`` so that a pass over their ids does not wait for them again.
    /// What was gathered is then looked at.
    func updated(locked: [Int64], at now: ContinuousClock.Instant = .now) -> SkippedRecords {
        var next = SkippedRecords()
        next.lastChecked = now
        for (id, first) in firstSkipped where now - first >= Self.patience && now - first < Self.patience * 2 {
            next.firstSkipped[id] = first
        }
        for id in locked {
            next.firstSkipped[id] = firstSkipped[id] ?? now
        }
        if next.firstSkipped.count > Self.limit {
            let kept = Set(next.firstSkipped.keys.sorted().prefix(Self.limit))
            next.firstSkipped = next.firstSkipped.filter { kept.contains($0.key) }
        }
        return next
    }

    /// What the picks looked at since the last look: ranges of ids, each after one id (from the first
    /// when nil) through another (to the last when nil), and single ids.
    struct Looked: Sendable {
        private(set) var ranges: [(after: Int64?, through: Int64?)] = []
        private(set) var ids: Set<Int64> = []

        /// A cursor goes on from where the last pick ended, or a little before it (records given back
        /// for want of room): such a range extends the last. One that starts before the last range
        /// (the cursor came round to the first id again) is kept apart, so that no look spans the ids
        /// between.
        mutating func add(_ scan: Scan) {
            ids.formUnion(scan.ids)
            guard let range = scan.range else { return }
            if let last = ranges.last, (last.after ?? .min) <= (range.after ?? .min),
                (range.after ?? .min) <= (last.through ?? .max) {
                let through = last.through.flatMap { bound in range.through.map { max(bound, $0) } }
                ranges[ranges.count - 1] = (last.after, through)
            } else {
                ranges.append(range)
            }
        }
    }

    /// What a pick looked at, to find what it skipped.
    struct Scan: Sendable {
        /// The ids after `after` (from the first when nil), through `through` (to the last when nil).
        let range: (after: Int64?, through: Int64?)?
        /// The ids it looked at besides.
        let ids: [Int64]

        /// What a pick from `position` that marked `picked`, at most `limit`, looked at: every id up
        /// to the last it marked, or to the end of the ids when it marked fewer than `limit`.
        init(_ position: ClaimPosition, picked: [Int64], limit: Int) {
            switch position {
            case .after(let cursor):
                range = (cursor, picked.count < limit ? nil : picked.max())
                ids = []
            case .watching(let watched):
                range = nil
                ids = watched
            }
        }
    }
}
#endif
