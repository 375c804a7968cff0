import Foundation
import Rederive
import RederiveCodec
import Synchronization

/// Storing a batch of results in one transaction, fenced by the lease and each record's generation.
extension MemoryStore {
    /// Stores values, stamps and failures at once; throws `RederiveError.Code.leaseLost` when `lease`
    /// was taken over. A result whose payload changed, whose record was deleted or that another live
    /// lease holds is skipped. What is stored is the batch's `CommitPlan`.
    public func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> CommitOutcome {
        guard !results.isEmpty else { return .empty }
        let batch = try CommitBatch(results, of: plan.pipeline)
        return try state.withLock { state in
            let now = Date()
            if let lease {
                guard state.holds(lease) else { throw Self.leaseLost(lease) }
                // A commit renews the lease: an expired lease nobody took over is still this process's.
                state.leases[lease.token]?.renewedAt = now
                state.leases[lease.token]?.expiresAt = now + lease.duration.timeInterval
            }
            let stored = Self.commitState(of: batch, lease: lease, &state)
            let commit = batch.plan(stored: stored, rules: MemoryStorage.rules)
            for step in commit.steps {
                Self.apply(step, batch.pipeline, runID: runID, now: now, &state)
            }
            let counts = commit.counts
            if let index = state.runIndex(runID) {
                state.runs[index].counts += counts
            }
            if let lease {
                state.leases[lease.token]?.done += counts.changed + counts.unchanged + counts.failed
            }
            return commit.outcome
        }
    }

    /// What the plan needs of the batch's records: generation, whether another live lease holds
    /// them, and the values of the processors that derived any of them. Frees this lease's claims on
    /// them, stored or skipped.
    private static func commitState(of batch: CommitBatch, lease: WorkerLease?, _ state: inout MemoryState) -> [Int64: StoredCommitState] {
        let pipeline = batch.pipeline
        let processors = batch.derivedProcessors
        var stored: [Int64: StoredCommitState] = [:]
        for id in batch.recordIDs where stored[id] == nil {
            guard let record = state.tables[pipeline.table]?.records[id] else { continue }
            let heldByAnother = record.claimedBy.map { holder in holder != lease?.token && state.leases[holder] != nil } ?? false
            if let lease, record.claimedBy == lease.token {
                state.tables[pipeline.table]?.records[id]?.claimedBy = nil
            }
            // With no processor derived, no value is compared: the row's presence does not matter.
            var values: [Int: [DerivedValue]]? = [:]
            for index in processors {
                guard let held = state.storedValues(of: pipeline, index, id) else {
                    values = nil
                    break
                }
                values?[index] = held
            }
            stored[id] = StoredCommitState(generation: record.generation, heldByAnother: heldByAnother, values: values)
        }
        return stored
    }

    /// Writes one step of a plan.
    private static func apply(_ step: CommitWrites, _ pipeline: Pipeline, runID: Int64, now: Date, _ state: inout MemoryState) {
        let table = pipeline.table
        let processors = pipeline.processors
        for id in step.committed {
            state.tables[table]?.records[id]?.committedRun = runID
        }
        for projection in step.projections {
            state.projections[ProjectionKey(pipeline: pipeline.name, recordID: projection.recordID)] = MemoryProjection(
                generation: projection.generation, version: projection.version, checksum: PayloadCodec.digest(projection.bytes),
                payloadDigest: projection.payloadDigest, bytes: projection.bytes
            )
        }
        for failure in step.failures {
            let processor = processors[failure.processor]
            let key = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: failure.recordID)
            state.failures[key] = MemoryFailure(
                source: table, version: processor.version, generation: failure.generation, current: true, kind: failure.kind,
                message: failure.message, runID: runID, failedAt: now
            )
            // A processor that failed no longer vouches for the values it holds.
            state.stamps[key]?.current = false
        }
        for replaced in step.replaced {
            keep(replaced, pipeline, runID: runID, &state)
        }
        for write in step.values {
            self.write(write.values, into: write.processors.flatMap { processors[$0].columns }, of: write.recordID, pipeline, &state)
        }
        for stamp in step.stamps {
            for index in stamp.processors {
                let processor = processors[index]
                let key = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: stamp.recordID)
                state.stamps[key] = MemoryStamp(
                    source: table, version: processor.version, generation: stamp.generation, payloadDigest: stamp.payloadDigest,
                    inputsDigest: stamp.inputDigests[index], inputVersions: pipeline.inputVersions(of: index), current: true,
                    runID: runID, derivedAt: now
                )
                state.failures[key] = nil
            }
        }
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

    /// Keeps the values and stamps a commit replaces, so that the run can be rolled back; before the
    /// new stamps are written. A record the run stored before keeps what its first write replaced,
    /// with the generation of this one (`RollbackPlan`).
    private static func keep(_ replaced: ReplacedWrite, _ pipeline: Pipeline, runID: Int64, _ state: inout MemoryState) {
        for kept in replaced.processors {
            let processor = pipeline.processors[kept.processor]
            let replacedKey = ReplacedKey(runID: runID, pipeline: pipeline.name, processor: processor.name, recordID: replaced.recordID)
            if state.replaced[replacedKey] != nil {
                state.replaced[replacedKey]?.derivedGeneration = replaced.generation
                continue
            }
            let old = switch kept.old {
            case .values(let values): values
            case .defaults: processor.columns.map { MemoryStorage.rules.stored($0.defaultValue, in: $0.type) }
            }
            let key = ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: replaced.recordID)
            state.replaced[replacedKey] = MemoryReplaced(
                source: pipeline.table, derivedGeneration: replaced.generation, stamp: state.stamps[key],
                values: Dictionary(zip(processor.columns.map(\.name), old), uniquingKeysWith: { first, _ in first })
            )
        }
    }
}
