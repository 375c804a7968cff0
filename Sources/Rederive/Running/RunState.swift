/// A run's identity and clock, and whether it was interrupted.
package struct RunState: Sendable {
    package let runID: Int64
    /// The records the run has pending, as its progress events count them.
    let total: Int
    let clock: ContinuousClock
    let start: ContinuousClock.Instant
    var interrupted = false

    /// A run started now on `clock`.
    package init(runID: Int64, total: Int, clock: ContinuousClock) {
        self.runID = runID
        self.total = total
        self.clock = clock
        self.start = clock.now
    }

    var elapsed: Duration { clock.now - start }

    /// Reports how far the run got in `pipeline` by `work`, and the size of its next batch.
    func report(pipeline: String, progress: any ProgressReporter, work: SynchronizedWork, overdue: [InFlightRecord], batchSize: Int) {
        let counts = work.committed
        progress.report(.advanced(.init(
            runID: runID, pipeline: pipeline, done: counts.total, total: total, counts: counts, elapsed: elapsed,
            overdue: overdue, batchSize: batchSize, transientRetries: work.transientRetries
        )))
    }
}
