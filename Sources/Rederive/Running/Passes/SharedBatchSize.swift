import Synchronization

/// A pass's ``BatchSizer`` shared by its writer, which tells it each commit, and its workers, which
/// claim no more than the batch it sizes.
package final class SharedBatchSize: Sendable {
    private let sizer: Mutex<BatchSizer>

    /// Shares `sizer`.
    package init(_ sizer: BatchSizer) {
        self.sizer = Mutex(sizer)
    }

    /// Records the next batch holds at the most.
    package var size: Int { sizer.withLock { $0.size } }

    /// The most records any batch of the pass may hold.
    package var maximum: Int { sizer.withLock { $0.bounds.upperBound } }

    /// See ``BatchSizer/observe(records:duration:)``; returns the size of the next batch.
    @discardableResult
    package func observe(records: Int, duration: Duration) -> Int {
        sizer.withLock { sizer in
            sizer.observe(records: records, duration: duration)
            return sizer.size
        }
    }
}
