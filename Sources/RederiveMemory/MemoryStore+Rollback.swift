import Foundation
import Rederive
import Synchronization

/// Undoing a run and clearing a pipeline's derived state, as on SQLite.
extension MemoryStore: StoreAdministration {
    /// Puts back the values and stamps that run `runID` replaced, skipping with the reason the records
    /// whose payload changed, that were deleted or that a later run derived again.
    public func rollback(run runID: Int64, pipelines: [Pipeline]) async throws -> RollbackReport {
        try state.withLock { state in
            state.revision += 1
            guard let index = state.runIndex(runID) else {
                throw RederiveError(.unknownName, "no run \(runID) in the in-memory store")
            }
            let run = state.runs[index]
            let candidate = RollbackRules.Candidate(
                runID: runID, status: run.status, changedRecords: run.counts.derived,
                keptEntries: state.replaced.keys.count(where: { $0.runID == runID }),
                laterRunsKeepingValues: Set(state.replaced.keys.map(\.runID).filter { $0 > runID }).count,
                inProgress: Self.runsInProgress(state)
            )
            try RollbackRules.requireRollbackable(candidate, in: "the in-memory store", keep: replacedValuesRunLimit)
            var report = RollbackReport()
            for pipeline in pipelines {
                Self.rollback(runID, pipeline, &state, into: &report)
            }
            return report
        }
    }

    private static func rollback(_ runID: Int64, _ pipeline: Pipeline, _ state: inout MemoryState, into report: inout RollbackReport) {
        let kept = state.replaced
            .filter { $0.key.runID == runID && $0.key.pipeline == pipeline.name }
            .sorted { ($0.key.recordID, $0.key.processor) < ($1.key.recordID, $1.key.processor) }
        var restored: [RollbackReport.Entry] = []
        for (key, replaced) in kept {
            let record = state.tables[replaced.source]?.records[key.recordID]
            let stampKey = ProcessorRecord(pipeline: key.pipeline, processor: key.processor, recordID: key.recordID)
            let currentRun = state.stamps[stampKey]?.runID
            func entry(_ reason: String?) -> RollbackReport.Entry {
                .init(pipeline: pipeline.name, recordID: key.recordID, key: record?.key, processor: key.processor, reason: reason)
            }
            let reason: String? = if record == nil {
                "the record was deleted"
            } else if record?.generation != replaced.derivedGeneration {
                "its payload changed since run \(runID)"
            } else if let later = RollbackRules.laterChange(after: runID, newestLaterChange: state.replaced.keys.filter {
                $0.runID > runID && $0.pipeline == key.pipeline && $0.processor == key.processor && $0.recordID == key.recordID
            }.map(\.runID).max()) {
                later
            } else if state.stamps[stampKey] == nil || currentRun == nil {
                "its stamp was removed since run \(runID)"
            } else if pipeline.processor(named: key.processor) == nil {
                "the pipeline no longer has processor \"\(key.processor)\""
            } else {
                nil
            }
            if let reason {
                report.skipped.append(entry(reason))
                continue
            }
            if let columns = pipeline.processor(named: key.processor)?.columns {
                // A column without a kept value held its declared default.
                let values = columns.map { replaced.values[$0.name] ?? MemoryStorage.rules.stored($0.defaultValue, in: $0.type) }
                write(values, into: columns, of: key.recordID, pipeline, &state)
            }
            if var stamp = replaced.stamp {
                // The old stamp is current only if it was, and for the payload the record still has.
                stamp.current = stamp.current && stamp.generation == replaced.derivedGeneration
                state.stamps[stampKey] = stamp
            } else {
                state.stamps[stampKey] = nil
            }
            state.replaced[key] = nil
            restored.append(entry(nil))
        }
        report.restored += restored
        // Dependents of what was restored were derived from the values now replaced, unless restored too.
        let restoredPairs = Set(restored.map { "\($0.recordID) \($0.processor)" })
        for entry in restored {
            for name in pipeline.dependents(of: entry.processor) where !restoredPairs.contains("\(entry.recordID) \(name)") {
                state.stamps[ProcessorRecord(pipeline: pipeline.name, processor: name, recordID: entry.recordID)]?.current = false
            }
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
