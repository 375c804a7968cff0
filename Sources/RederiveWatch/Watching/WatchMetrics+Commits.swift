import Rederive

extension WatchMetrics {
    /// Reports one commit of `plan`'s results: records per processor and outcome, failures by kind,
    /// and how long the commit took.
    ///
    /// A commit counts records, not processors: a processor's records that did not fail are split
    /// between `derived` and `unchanged` in the proportion the commit counted records that changed
    /// and records that did not. Records skipped (their payload changed meanwhile) are not counted.
    func committed(_ results: [RecordResult], counts: RunCounts, duration: Duration, plan: RunPlan) {
        let pipeline = plan.pipeline
        var failedByProcessor: [Int: Int] = [:]
        var succeededByProcessor: [Int: Int] = [:]
        var failuresByKind: [String: Int] = [:]
        for result in results {
            for (processor, outcome) in result.outcomes {
                switch outcome {
                case .derived:
                    succeededByProcessor[processor, default: 0] += 1
                case .failed(let kind, _):
                    failedByProcessor[processor, default: 0] += 1
                    failuresByKind[kind.rawValue, default: 0] += 1
                }
            }
        }
        let settled = counts.derived + counts.unchanged
        for (processor, count) in succeededByProcessor {
            let name = pipeline.processors[processor].name
            let derived = settled == 0 ? 0 : Int((Double(count) * Double(counts.derived) / Double(settled)).rounded())
            recordsHandled(pipeline: pipeline.name, processor: name, outcome: .derived, count: derived)
            recordsHandled(pipeline: pipeline.name, processor: name, outcome: .unchanged, count: max(0, count - derived))
        }
        for (processor, count) in failedByProcessor {
            recordsHandled(pipeline: pipeline.name, processor: pipeline.processors[processor].name, outcome: .failed, count: count)
        }
        for (kind, count) in failuresByKind {
            failures(pipeline: pipeline.name, kind: kind, count: count)
        }
        batchDuration(seconds: duration.secondsValue)
    }
}
