import Foundation
import Rederive
import RederiveCodec
import Synchronization

/// Storing a batch of results in one transaction, fenced by the lease and each record's generation.
extension MemoryStore {
    /// Stores values, stamps and failures at once; throws `RederiveError.Code.leaseLost` when `lease`
    /// was taken over. A result whose payload changed, whose record was deleted or that another live
    /// lease holds is skipped.
    public func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> RunCounts {
        guard !results.isEmpty else { return RunCounts() }
        // Values are stored by position: a result with too few or too many is refused whole.
        if let error = results.lazy.compactMap({ $0.valueCountError(in: plan.pipeline) }).first {
            throw error
        }
        return try state.withLock { state in
            let now = Date()
            if let lease {
                guard state.holds(lease) else { throw Self.leaseLost(lease) }
                // A commit renews the lease: an expired lease nobody took over is still this process's.
                state.leases[lease.token]?.renewedAt = now
                state.leases[lease.token]?.expiresAt = now + lease.duration.secondsValue
            }
            var counts = RunCounts()
            for result in results {
                Self.store(result, plan.pipeline, runID: runID, lease: lease, now: now, &state, into: &counts)
            }
            if let index = state.runIndex(runID) {
                state.runs[index].counts += counts
            }
            if let lease {
                state.leases[lease.token]?.done += counts.derived + counts.unchanged + counts.failed
            }
            return counts
        }
    }

    /// Stores one record's values, stamps and failures, unless its payload changed since it was
    /// read, it was deleted, or another live lease holds it: then it is skipped and stays stale.
    private static func store(
        _ result: RecordResult, _ pipeline: Pipeline, runID: Int64, lease: WorkerLease?, now: Date,
        _ state: inout MemoryState, into counts: inout RunCounts
    ) {
        let table = pipeline.table
        guard let record = state.tables[table]?.records[result.recordID] else {
            counts.skipped += 1
            return
        }
        let heldByAnother = record.claimedBy.map { holder in holder != lease?.token && state.leases[holder] != nil } ?? false
        if let lease, record.claimedBy == lease.token {
            state.tables[table]?.records[result.recordID]?.claimedBy = nil
        }
        guard record.generation == result.generation, !heldByAnother else {
            counts.skipped += 1
            return
        }
        state.tables[table]?.records[result.recordID]?.committedRun = runID
        if let projection = result.projection, let version = pipeline.projectionVersion {
            state.projections[ProjectionKey(pipeline: pipeline.name, recordID: result.recordID)] = MemoryProjection(
                generation: result.generation, version: version, checksum: PayloadCodec.digest(projection),
                payloadDigest: result.payloadDigest, bytes: projection
            )
        }
        let processors = pipeline.processors
        let (derived, values, failures) = result.committable
        for failure in failures {
            let processor = processors[failure.processor]
            let key = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: result.recordID)
            state.failures[key] = MemoryFailure(
                source: table, version: processor.version, generation: result.generation, current: true, kind: failure.kind,
                message: failure.message, runID: runID, failedAt: now
            )
            // A processor that failed no longer vouches for the values it holds.
            state.stamps[key]?.current = false
        }
        var changed = false
        if !derived.isEmpty {
            let columns = derived.flatMap { processors[$0].columns }
            let stored = state.storedValues(of: pipeline, columns, result.recordID)
            changed = stored.map { !$0.isUnchanged(byStoring: values, in: columns) } ?? true
            if changed {
                keepReplaced(derived, values, stored: stored, result, pipeline, runID: runID, &state)
                write(values, into: columns, of: result.recordID, pipeline, &state)
            }
            for index in derived {
                let processor = processors[index]
                let key = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: result.recordID)
                state.stamps[key] = MemoryStamp(
                    source: table, version: processor.version, generation: result.generation, payloadDigest: result.payloadDigest,
                    inputsDigest: result.inputDigests[index], inputVersions: pipeline.inputVersions(of: index), current: true,
                    runID: runID, derivedAt: now
                )
                state.failures[key] = nil
            }
        }
        counts.count(failed: !failures.isEmpty, changed: changed)
    }

    /// Writes values into a record's row of derived values, as the columns hold them; a row created
    /// here holds its other columns' defaults.
    static func write(_ values: [DerivedValue], into columns: [OutputColumn], of recordID: Int64, _ pipeline: Pipeline, _ state: inout MemoryState) {
        let name = destinationName(of: pipeline)
        if state.destinations[name] == nil {
            prepare(pipeline, &state)
        }
        var row = state.destinations[name]?.rows[recordID] ?? [:]
        for (value, column) in zip(values, columns) {
            row[column.name] = MemoryStorage.rules.stored(value, in: column.type)
        }
        state.destinations[name]?.rows[recordID] = row
    }

    /// Keeps, for each derived processor whose values change, the values and stamp about to be
    /// replaced, so that the run can be rolled back. `stored` is nil when the record had no row of
    /// derived values: its columns then held their defaults.
    private static func keepReplaced(
        _ derived: [Int], _ values: [DerivedValue], stored: [DerivedValue]?, _ result: RecordResult, _ pipeline: Pipeline,
        runID: Int64, _ state: inout MemoryState
    ) {
        var offset = 0
        for index in derived {
            let processor = pipeline.processors[index]
            let range = offset..<(offset + processor.columns.count)
            offset = range.upperBound
            let old = stored.map { Array($0[range]) } ?? processor.columns.map { MemoryStorage.rules.stored($0.defaultValue, in: $0.type) }
            guard stored == nil || !old.isUnchanged(byStoring: Array(values[range]), in: processor.columns) else { continue }
            let key = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: result.recordID)
            state.replaced[ReplacedKey(runID: runID, pipeline: pipeline.name, processor: processor.name, recordID: result.recordID)] =
                MemoryReplaced(
                    source: pipeline.table, derivedGeneration: result.generation, stamp: state.stamps[key],
                    values: Dictionary(zip(processor.columns.map(\.name), old), uniquingKeysWith: { first, _ in first })
                )
        }
    }
}

extension [DerivedValue] {
    /// Whether storing `values` in `columns` would leave these stored values as they are, by the
    /// store's rules (`MemoryStorage.rules`).
    func isUnchanged(byStoring values: [DerivedValue], in columns: [OutputColumn]) -> Bool {
        guard count == values.count, count == columns.count else { return false }
        return indices.allSatisfy { MemoryStorage.rules.isUnchanged(self[$0], byStoring: values[$0], in: columns[$0].type) }
    }
}
