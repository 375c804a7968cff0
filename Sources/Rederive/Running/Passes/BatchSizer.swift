/// Sizes a pipeline's batches toward a target duration, from how long its commits take.
///
/// Each commit's duration per record, smoothed by an exponential moving average, says how many records
/// fit in the target; the size moves toward that many after each commit, growing by at most ×1.2 and
/// shrinking by at most half, within its bounds (a batch of a few records grows by one). The average
/// takes a slower commit at half weight and a faster one at 15 %: while another writer holds the
/// database's lock, the commits that wait for it are followed by quick ones that find it free, and
/// those must not undo at once what the slow ones said. Growth is slow for the same reason; shrinking
/// is faster so that a database that slows down (another writer holds its lock, a checkpoint runs) is
/// relieved within a few commits. A fixed size is a sizer whose bounds are that one size.
///
/// A plain state machine: the writer tells it each commit, and the workers read the size it sets (see
/// ``SharedBatchSize``); tests drive it with durations of their choosing.
package struct BatchSizer: Sendable, Hashable {
    /// How long a commit should take.
    package let target: Duration
    /// The fewest and the most records a batch holds.
    package let bounds: ClosedRange<Int>
    /// Records the next batch holds at the most.
    package private(set) var size: Int
    /// Seconds per record, smoothed over the commits so far; nil before the first.
    package private(set) var secondsPerRecord: Double?

    /// The weight of a commit slower per record than the average so far: a jump in durations shows
    /// half in the first commit after it, three quarters in the second.
    package static let slowerWeight = 0.5
    /// The weight of a commit faster per record than the average so far.
    package static let fasterWeight = 0.15
    /// The most a batch grows from one commit to the next (GitLab's batched migrations use the same).
    package static let growth = 1.2
    /// The most a batch shrinks from one commit to the next.
    package static let shrinkage = 2.0

    /// A sizer that starts at `initial` records (within `bounds`) and sizes toward `target`.
    package init(target: Duration, bounds: ClosedRange<Int>, initial: Int) {
        precondition(bounds.lowerBound >= 1, "a batch holds at least one record")
        self.target = target
        self.bounds = bounds
        self.size = min(max(initial, bounds.lowerBound), bounds.upperBound)
    }

    /// A sizer that keeps every batch at `size` records.
    package init(fixed size: Int) {
        self.init(target: .zero, bounds: size...size, initial: size)
    }

    /// Whether the size follows the commits' durations.
    package var isAdaptive: Bool { bounds.lowerBound < bounds.upperBound }

    /// Takes in a commit of `records` that took `duration`, and sets the size of the next batch.
    package mutating func observe(records: Int, duration: Duration) {
        guard records > 0, isAdaptive else { return }
        let perRecord = max(0, duration.secondsValue) / Double(records)
        let smoothed = secondsPerRecord.map { average in
            let weight = perRecord > average ? Self.slowerWeight : Self.fasterWeight
            return weight * perRecord + (1 - weight) * average
        } ?? perRecord
        secondsPerRecord = smoothed
        // Records that fit in the target at the smoothed duration; as many as allowed when commits take no time.
        let fitting = smoothed > 0 ? target.secondsValue / smoothed : Double(bounds.upperBound)
        let current = Double(size)
        let stepped = min(max(fitting, current / Self.shrinkage), current * Self.growth)
        // A small batch that has room for a record more grows by one, or it would never leave 1 to 4 records.
        var next = Int(stepped.rounded(.down))
        if next == size, fitting >= current + 1 { next += 1 }
        size = min(max(next, bounds.lowerBound), bounds.upperBound)
    }
}
