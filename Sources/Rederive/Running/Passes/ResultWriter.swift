import Logging

/// The one writer of a pipeline's derivation: commits the workers' results as they arrive, a batch at
/// a time or about every commit interval, each commit fenced by the lease; adds up what the commits
/// counted, logs them, and reports progress after each, and while a record hangs.
package struct ResultWriter: Sendable {
    /// Told of each commit: the results committed, what the commit made of each, and how long the
    /// commit took.
    package typealias CommitObserver = @Sendable (_ results: [RecordResult], _ outcome: CommitOutcome, _ duration: Duration) -> Void

    let plan: RunPlan
    let store: any RecordStore
    let lease: LeaseKeeper
    let work: SynchronizedWork
    let channel: ResultChannel
    /// Results committed at once, at the most: sized from each commit's duration, or fixed.
    let batchSize: SharedBatchSize
    /// How long the writer waits for a full batch before it commits what it holds.
    let commitInterval: Duration
    let recordTimeout: Duration?
    let run: RunState
    let progress: any ProgressReporter
    let logger: Logger
    /// Tries a commit again after a transient error.
    let retry: TransientRetry
    /// Told of every commit, when set.
    var committed: CommitObserver? = nil

    /// Commits until every worker is done and everything sent is committed. Throws when a commit
    /// fails, or when a processor returned the wrong number of values.
    func write() async throws {
        var reportedOverdue: [Int64] = []
        while true {
            let received = await channel.receive(
                upTo: batchSize.size, idleUntil: run.clock.now + .seconds(1), fillWithin: commitInterval
            )
            let overdue = work.overdue(after: recordTimeout)
            switch received {
            case .finished:
                return
            case .idle:
                // Nothing to commit, but a record that has hung should still show.
                if overdue.map(\.recordID) != reportedOverdue {
                    run.report(pipeline: plan.pipeline.name, progress: progress, work: work, overdue: overdue, batchSize: batchSize.size)
                }
                if Task.isCancelled {
                    // A cancelled task's sleeps end at once: pause without one while the workers stop.
                    await sleepEvenIfCancelled(for: .milliseconds(20))
                }
            case .results(let results):
                if let error = results.lazy.compactMap({ $0.valueCountError(in: plan.pipeline) }).first {
                    throw error
                }
                let commitStarted = run.clock.now
                let outcome = try await commit(results)
                let counts = outcome.counts
                let duration = run.clock.now - commitStarted
                work.commit(counts, results: results)
                let nextSize = batchSize.observe(records: results.count, duration: duration)
                committed?(results, outcome, duration)
                log(committed: results, counts: counts, duration: duration, nextSize: nextSize)
                run.report(pipeline: plan.pipeline.name, progress: progress, work: work, overdue: overdue, batchSize: nextSize)
            }
            reportedOverdue = overdue.map(\.recordID)
        }
    }

    /// Commits one batch with the lease held now, or a new one when it was lost; again after a
    /// transient error.
    private func commit(_ results: [RecordResult]) async throws -> CommitOutcome {
        let store = self.store
        let plan = self.plan
        let runID = run.runID
        return try await retry.run("commit") {
            try await lease.withCurrentLease(pipeline: plan.pipeline.name) { held in
                try await store.commit(results, plan: plan, runID: runID, lease: held)
            }
        }
    }

    /// Logs a commit at debug level, with how long it took and the size of the next batch, and each
    /// failure it recorded at info level, with the run, pipeline, processor and record as metadata.
    private func log(committed results: [RecordResult], counts: RunCounts, duration: Duration, nextSize: Int) {
        let pipeline = plan.pipeline
        let runID = run.runID
        logger.debug("committed", metadata: [
            "run": "\(runID)", "pipeline": "\(pipeline.name)", "records": "\(results.count)",
            "derived": "\(counts.changed)", "unchanged": "\(counts.unchanged)", "failed": "\(counts.failed)",
            "skipped": "\(counts.skipped)", "milliseconds": "\((duration.secondsValue * 10_000).rounded() / 10)",
            "nextBatch": "\(nextSize)",
        ])
        guard logger.logLevel <= .info else { return }
        for result in results {
            for (processor, outcome) in result.outcomes {
                guard case .failed(let kind, let message) = outcome else { continue }
                logger.info("record failed", metadata: [
                    "run": "\(runID)", "pipeline": "\(pipeline.name)", "processor": "\(pipeline.processors[processor].name)",
                    "record": "\(result.recordID)", "kind": "\(kind.rawValue)", "message": "\(message)",
                ])
            }
        }
    }
}
