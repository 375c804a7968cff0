import Rederive

extension WatchMetrics {
    /// Reports one commit of `plan`'s results: records per processor and outcome, failures by kind,
    /// and how long the commit took.
    ///
    /// Each count is the commit's own: a processor's record is `derived` when the commit changed its
    /// values, `unchanged` when they were already held, and `failed` when its failure was stored.
    /// Results the commit skipped (their payload changed meanwhile) are not counted.
    func committed(_ results: [RecordResult], outcome: CommitOutcome, duration: Duration, plan: RunPlan) {
        let pipeline = plan.pipeline
        var handled: [HandledKey: Int] = [:]
        var failuresByKind: [String: Int] = [:]
        for (result, record) in zip(results, outcome.records) where record.disposition != .skipped {
            for processor in record.derived {
                let changed = record.changed.contains(processor)
                handled[HandledKey(processor: processor, outcome: changed ? .derived : .unchanged), default: 0] += 1
            }
            for processor in record.failed {
                handled[HandledKey(processor: processor, outcome: .failed), default: 0] += 1
                if case .failed(let kind, _)? = result.outcomes.first(where: { $0.processor == processor })?.outcome {
                    failuresByKind[kind.rawValue, default: 0] += 1
                }
            }
        }
        for (key, count) in handled {
            recordsHandled(pipeline: pipeline.name, processor: pipeline.processors[key.processor].name, outcome: key.outcome, count: count)
        }
        for (kind, count) in failuresByKind {
            failures(pipeline: pipeline.name, kind: kind, count: count)
        }
        batchDuration(seconds: duration.secondsValue)
    }
}

/// One processor and what a commit made of its records.
private struct HandledKey: Hashable {
    let processor: Int
    let outcome: WatchMetrics.Outcome
}
