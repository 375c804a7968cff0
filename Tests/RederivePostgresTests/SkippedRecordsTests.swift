#if PostgreSQL
@testable import RederivePostgres
import Testing

/// What a worker's picks looked at is gathered between two looks for what they skipped, and looked at
/// once per interval: no look may miss an id a pick passed over, nor span ids no pick looked at.
@Suite("records the picks skipped, gathered between looks")
struct SkippedRecordsTests {
    static func scan(after cursor: Int64?, picked: ClosedRange<Int64>, limit: Int) -> SkippedRecords.Scan {
        SkippedRecords.Scan(.after(cursor), picked: Array(picked), limit: limit)
    }

    static func ranges(_ looked: SkippedRecords.Looked) -> [String] {
        looked.ranges.map { "\($0.after.map(String.init) ?? "first")...\($0.through.map(String.init) ?? "last")" }
    }

    @Test func aCursorsPicksJoinIntoOneRangeAndAComeRoundStaysApart() {
        var skipped = SkippedRecords()
        skipped = skipped.looked(at: Self.scan(after: nil, picked: 1...128, limit: 128))
        skipped = skipped.looked(at: Self.scan(after: 128, picked: 300...427, limit: 128))
        // Records given back for want of room: the cursor goes on from before the last pick's end.
        skipped = skipped.looked(at: Self.scan(after: 400, picked: 428...555, limit: 128))
        #expect(Self.ranges(skipped.unchecked) == ["first...555"])
        // Fewer than the limit: the pick looked to the end of the ids.
        skipped = skipped.looked(at: Self.scan(after: 555, picked: 600...610, limit: 128))
        #expect(Self.ranges(skipped.unchecked) == ["first...last"])

        var cameRound = SkippedRecords().looked(at: Self.scan(after: 5_000, picked: 5_001...5_010, limit: 128))
        cameRound = cameRound.looked(at: Self.scan(after: nil, picked: 1...128, limit: 128))
        #expect(Self.ranges(cameRound.unchecked) == ["5000...last", "first...128"])
    }

    @Test func aLookIsDueFirstThenOncePerIntervalOrWhenRangesGrowMany() {
        let start = ContinuousClock.now
        let interval = Duration.milliseconds(500)
        var skipped = SkippedRecords()
        #expect(skipped.checkIsDue(every: interval, at: start))
        skipped = skipped.looked(at: Self.scan(after: nil, picked: 1...128, limit: 128)).updated(locked: [42], at: start)
        #expect(skipped.unchecked.ranges.isEmpty)
        #expect(skipped.waiting(at: start) == [42])
        #expect(!skipped.checkIsDue(every: interval, at: start + .milliseconds(499)))
        #expect(skipped.checkIsDue(every: interval, at: start + interval))

        // Each come-round starts a range of its own; past the limit, the next claim looks at once.
        for round in 0...SkippedRecords.rangeLimit {
            let first = Int64(round) * 10
            skipped = skipped.looked(at: Self.scan(after: first + 1_000, picked: (first + 1_001)...(first + 1_002), limit: 2))
            skipped = skipped.looked(at: Self.scan(after: first, picked: (first + 1)...(first + 2), limit: 2))
        }
        #expect(skipped.unchecked.ranges.count > SkippedRecords.rangeLimit)
        #expect(skipped.checkIsDue(every: interval, at: start + .milliseconds(1)))
        #expect(skipped.waiting(at: start) == [42], "gathering forgets nothing skipped before")
    }
}
#endif
