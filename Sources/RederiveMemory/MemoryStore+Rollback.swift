import Foundation
import Rederive
import Synchronization

/// Undoing a run and clearing a pipeline's derived state, as on SQLite.
extension MemoryStore: StoreAdministration {
    /// Puts back the values and stamps that run `runID` replaced, as the `RollbackPlan` of each
    /// pipeline decides.
    public func rollback(run runID: Int64, pipelines: [Pipeline]) async throws -> RollbackReport {
        try state.withLock { state in
            state.revision += 1
            guard let index = state.runIndex(runID) else {
                throw RederiveError(.unknownName, "no run \(runID) in the in-memory store")
            }
            let run = state.runs[index]
            let candidate = RollbackRules.Candidate(
                runID: runID, status: run.status, changedRecords: run.counts.changed,
                keptEntries: state.replaced.keys.count(where: { $0.runID == runID }),
                laterRunsKeepingValues: Set(state.replaced.keys.map(\.runID).filter { $0 > runID }).count,
                inProgress: Self.runsInProgress(state)
            )
            try RollbackRules.requireRollbackable(candidate, in: "the in-memory store", keep: replacedValuesRunLimit)
            var report = RollbackReport()
            for pipeline in pipelines {
                let plan = RollbackPlan(run: runID, pipeline: pipeline, kept: Self.keptEntries(runID, pipeline, state))
                Self.apply(plan, runID, pipeline, &state)
                report.add(plan.report)
            }
            return report
        }
    }

    /// What the run kept in the pipeline, each entry with what its record holds now.
    private static func keptEntries(_ runID: Int64, _ pipeline: Pipeline, _ state: MemoryState) -> [StoredRollbackEntry] {
        state.replaced.compactMap { key, replaced in
            guard key.runID == runID, key.pipeline == pipeline.name else { return nil }
            let record = state.tables[replaced.source]?.records[key.recordID]
            let later = state.replaced.keys.filter {
                $0.runID > runID && $0.pipeline == key.pipeline && $0.processor == key.processor && $0.recordID == key.recordID
            }
            return StoredRollbackEntry(
                recordID: key.recordID, key: record?.key, processor: key.processor, derivedGeneration: replaced.derivedGeneration,
                currentGeneration: record?.generation,
                hasStamp: state.stamps[ProcessorRecord(pipeline: key.pipeline, processor: key.processor, recordID: key.recordID)] != nil,
                newestLaterChange: later.map(\.runID).max(), values: replaced.values,
                stamp: replaced.stamp.map { KeptStamp(current: $0.current, generation: $0.generation) }
            )
        }
    }

    /// Writes what the plan puts back, forgets what the run kept of it, and makes the dependents stale.
    private static func apply(_ plan: RollbackPlan, _ runID: Int64, _ pipeline: Pipeline, _ state: inout MemoryState) {
        for entry in plan.restored {
            let processor = pipeline.processors[entry.processor]
            write(entry.values, into: processor.columns, of: entry.recordID, pipeline, &state)
            let stampKey = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: entry.recordID)
            let key = ReplacedKey(runID: runID, pipeline: pipeline.name, processor: processor.name, recordID: entry.recordID)
            switch entry.stamp {
            case .removed:
                state.stamps[stampKey] = nil
            case .kept(let current):
                state.stamps[stampKey] = state.replaced[key]?.stamp
                state.stamps[stampKey]?.current = current
            }
            state.replaced[key] = nil
        }
        for stale in plan.stale {
            state.stamps[ProcessorRecord(pipeline: pipeline.name, processor: pipeline.processors[stale.processor].name, recordID: stale.recordID)]?.current = false
        }
    }

    /// Clears a pipeline's derived state: stamps, failures and kept replaced values go, every derived
    /// column goes back to its declared default; payloads stay. Returns the number of records.
    /// Refused while a run is in progress.
    public func reset(_ pipeline: Pipeline) async throws -> Int {
        try state.withLock { state in
            try RollbackRules.requireNoRunInProgress(Self.runsInProgress(state), before: "reset pipeline \"\(pipeline.name)\"")
            state.revision += 1
            Self.prepare(pipeline, &state)
            state.stamps = state.stamps.filter { $0.key.pipeline != pipeline.name }
            state.failures = state.failures.filter { $0.key.pipeline != pipeline.name }
            state.replaced = state.replaced.filter { $0.key.pipeline != pipeline.name }
            state.projections = state.projections.filter { $0.key.pipeline != pipeline.name }
            let name = Self.destinationName(of: pipeline)
            let columns = pipeline.outputColumns
            for id in state.destinations[name]?.rows.keys.map({ $0 }) ?? [] {
                for column in columns {
                    state.destinations[name]?.rows[id]?[column.name] = MemoryStorage.rules.stored(column.defaultValue, in: column.type)
                }
            }
            return state.tables[pipeline.table]?.records.count ?? 0
        }
    }

    /// The runs that a live lease derives now.
    static func runsInProgress(_ state: MemoryState) -> [RollbackRules.RunInProgress] {
        let now = Date()
        return state.leases.values
            .filter { $0.expiresAt > now }
            .compactMap { lease in
                guard let runID = lease.runID, state.runIndex(runID).map({ state.runs[$0].status == .running }) == true else { return nil }
                return RollbackRules.RunInProgress(runID: runID, holder: lease.worker.description)
            }
            .sorted { $0.runID < $1.runID }
    }
}
