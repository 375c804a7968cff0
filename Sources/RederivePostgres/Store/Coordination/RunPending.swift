#if PostgreSQL
import Foundation
import Rederive

/// How many records a run had pending when it started, per pipeline, as `rederive_runs.pending` keeps
/// them (`{"roomscan": 5000}`): counted once by the worker that started the run, for the workers that
/// join it.
struct RunPending {
    /// The pipelines of the run's plans, in plan order.
    let pipelines: [String]
    /// Per pipeline, the records pending when the run started.
    let counts: [String: Int]

    /// The counts of `plans`, one per plan.
    init(plans: [RunPlan], counts: [Int]) {
        pipelines = plans.map(\.pipeline.name)
        self.counts = Dictionary(zip(pipelines, counts), uniquingKeysWith: +)
    }

    /// The counts a run's row keeps for `plans`; nil when it keeps none (a run started by an older
    /// rederive) or none for one of the plans' pipelines.
    init?(json: String?, plans: [RunPlan]) {
        guard let json, let counts = try? JSONDecoder().decode([String: Int].self, from: Data(json.utf8)) else { return nil }
        pipelines = plans.map(\.pipeline.name)
        guard pipelines.allSatisfy({ counts[$0] != nil }) else { return nil }
        self.counts = counts
    }

    /// The JSON object the run's row keeps.
    var json: String {
        String(decoding: (try? JSONEncoder().encode(counts)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Per plan, what is left once the run has committed `committed` records: workers take the plans
    /// in order, so the commits are counted against the first plans first.
    func left(afterCommitting committed: Int) -> [Int] {
        var committed = max(0, committed)
        return pipelines.map { pipeline in
            let counted = counts[pipeline] ?? 0
            let done = min(counted, committed)
            committed -= done
            return counted - done
        }
    }
}
#endif
