import Rederive
import Synchronization

/// Finding and counting stale records, by the engine's rule (``RunPlan/isStale(_:_:)``).
extension MemoryStore {
    /// How many records are stale for at least one of the plan's processors.
    public func staleCount(_ plan: RunPlan) async throws -> Int {
        state.withLock { state in
            state.staleIDs(plan, after: nil).count
        }
    }

    /// Up to `limit` stale records after `cursor`, in id order, without claiming them.
    public func staleRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        state.withLock { state in
            let ids = state.staleIDs(plan, after: cursor).prefix(max(0, limit))
            return state.read(Array(ids), plan, byteLimit: byteLimit)
        }
    }

    /// Per processor, the records up to date, stale and failed.
    public func status(of pipeline: Pipeline) async throws -> [ProcessorStatus] {
        state.withLock { state in
            let records = state.tables[pipeline.table]?.records.count ?? 0
            return pipeline.processors.map { processor in
                let upToDate = state.stamps.count { key, stamp in
                    key.pipeline == pipeline.name && key.processor == processor.name && stamp.version == processor.version && stamp.current
                }
                let failed = state.failures.count { key, failure in
                    key.pipeline == pipeline.name && key.processor == processor.name && failure.version == processor.version && failure.current
                }
                return ProcessorStatus(
                    pipeline: pipeline.name, name: processor.name, version: processor.version, records: records,
                    upToDate: upToDate, failed: failed
                )
            }
        }
    }
}

extension MemoryState {
    /// The current stamp of the processor at `index` of `pipeline` for a record, if it is of the
    /// processor's version.
    func currentStamp(_ pipeline: Pipeline, _ index: Int, _ recordID: Int64) -> MemoryStamp? {
        let processor = pipeline.processors[index]
        guard let stamp = stamps[ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: recordID)],
              stamp.version == processor.version, stamp.current
        else { return nil }
        return stamp
    }

    /// The current failure of the processor at `index` of `pipeline` on a record, if it is of the
    /// processor's version.
    func currentFailure(_ pipeline: Pipeline, _ index: Int, _ recordID: Int64) -> MemoryFailure? {
        let processor = pipeline.processors[index]
        guard let failure = failures[ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: recordID)],
              failure.version == processor.version, failure.current
        else { return nil }
        return failure
    }

    /// The plan's processors stale for a record, by the engine's rule (``RunPlan/isStale(_:_:)``).
    func staleProcessors(_ plan: RunPlan, _ recordID: Int64) -> [Int] {
        plan.staleProcessors(of: recordID) { index in
            let key = ProcessorRecord(pipeline: plan.pipeline.name, processor: plan.pipeline.processors[index].name, recordID: recordID)
            return ProcessorRecordState(
                currentStampVersion: stamps[key].flatMap { $0.current ? $0.version : nil },
                currentFailureVersion: failures[key].flatMap { $0.current ? $0.version : nil }
            )
        }
    }

    /// The ids of the records stale for at least one of the plan's processors, after `cursor`, in id order.
    func staleIDs(_ plan: RunPlan, after cursor: Int64?) -> [Int64] {
        guard let table = tables[plan.pipeline.table] else { return [] }
        return table.ids.filter { id in
            id > (cursor ?? .min) && !staleProcessors(plan, id).isEmpty
        }
    }

    /// The records with these ids, as the plan derives them: the payload only when a processor that
    /// reads it may run, and what dependents need of the stored state. The batch ends once its
    /// payloads hold `byteLimit` bytes, and always holds a record when one is present.
    func read(_ ids: [Int64], _ plan: RunPlan, byteLimit: Int = .max) -> [PendingRecord] {
        var records: [PendingRecord] = []
        var bytes = 0
        for id in ids where records.isEmpty || bytes < byteLimit {
            guard let record = tables[plan.pipeline.table]?.records[id] else { continue }
            let pending = self.pending(record, id, plan)
            bytes += pending.payload?.count ?? 0
            records.append(pending)
        }
        return records
    }

    /// One record as the plan derives it.
    func pending(_ record: MemoryRecord, _ id: Int64, _ plan: RunPlan) -> PendingRecord {
        let pipeline = plan.pipeline
        let stale = staleProcessors(plan, id)
        let readsPayload = plan.readsPayload(stale: stale)
        var stored: [Int: [DerivedValue]] = [:]
        if plan.needsStoredValues(stale: stale) {
            for index in plan.dependencyColumns {
                if let values = storedValues(of: pipeline, index, id) {
                    stored[index] = values
                }
            }
        }
        var failures: [Int: FailureKind] = [:]
        for index in plan.failuresDependentsNeed {
            if let failure = currentFailure(pipeline, index, id) { failures[index] = failure.kind }
        }
        var digests: [Int: Int64] = [:]
        for index in plan.dependents {
            if let digest = currentStamp(pipeline, index, id)?.inputsDigest { digests[index] = digest }
        }
        // A current projection serves the payload processors instead of the payload.
        var projection: StoredProjection?
        var fallback: ProjectionFallback?
        if readsPayload, plan.readsProjections, let version = pipeline.projectionVersion {
            if let stored = projections[ProjectionKey(pipeline: pipeline.name, recordID: id)] {
                fallback = stored.fallback(generation: record.generation, version: version)
                if fallback == nil { projection = StoredProjection(bytes: stored.bytes, payloadDigest: stored.payloadDigest) }
            } else {
                fallback = .missing
            }
        }
        return PendingRecord(
            recordID: id, generation: record.generation, staleProcessors: stale,
            input: PendingInput(projection: projection, readsPayload: readsPayload, payload: record.payload, fallback: fallback),
            dependencies: plan.dependencyState(
                stale: stale, storedValues: stored, consumedDigests: digests, failures: failures, storageRules: MemoryStorage.rules
            )
        )
    }

    /// The values the columns of the processor at `index` hold for a record; nil when the record has
    /// no row of derived values.
    func storedValues(of pipeline: Pipeline, _ index: Int, _ recordID: Int64) -> [DerivedValue]? {
        storedValues(of: pipeline, pipeline.processors[index].columns, recordID)
    }

    /// The values `columns` of `pipeline` hold for a record; nil when it has no row of derived values.
    func storedValues(of pipeline: Pipeline, _ columns: [OutputColumn], _ recordID: Int64) -> [DerivedValue]? {
        let exists = tables[pipeline.table]?.records[recordID] != nil
        if let destination = destinations[MemoryStore.destinationName(of: pipeline)] {
            return destination.values(of: recordID, columns, recordExists: exists)
        }
        // Never prepared: an inline record holds its columns' defaults, a companion row does not exist.
        guard pipeline.layout == .inline, exists else { return nil }
        return columns.map { MemoryStorage.rules.stored($0.defaultValue, in: $0.type) }
    }
}
