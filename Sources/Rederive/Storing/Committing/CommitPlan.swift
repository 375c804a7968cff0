/// What one commit does, decided in one place for every store: for each result its
/// ``CommitDisposition``, and the rows to write, in ``steps``.
///
/// The plan is pure: made from the batch's results (a ``CommitBatch``), the store's
/// ``StorageRules`` and the ``StoredCommitState`` the store read inside its transaction. A store
/// writes the steps in order, inside that same transaction; *how* it writes them is its own.
///
/// A record met twice in one batch is planned as if its results were committed one after the other:
/// the second sees the values the first stored. Its second result starts a new step, so that within
/// a step each record appears at most once.
public struct CommitPlan: Sendable {
    /// Per result, in batch order, what the commit makes of it.
    public let records: [RecordDisposition]
    /// The writes, in the order a store applies them; none when every result is skipped.
    public let steps: [CommitWrites]

    /// The commit's counts: ``RunCounts/count(failed:changed:)`` of each stored record, and the
    /// skipped ones.
    public var counts: RunCounts { RunCounts(records) }

    init(_ results: [RecordResult], _ pipeline: Pipeline, stored: [Int64: StoredCommitState], rules: StorageRules) {
        var planner = Planner(pipeline: pipeline, rules: rules, known: stored)
        for result in results {
            planner.plan(result)
        }
        records = planner.records
        steps = planner.finishedSteps()
    }
}

/// Plans results one at a time, keeping each record's state as the results planned so far leave it.
private struct Planner {
    let pipeline: Pipeline
    let rules: StorageRules
    var known: [Int64: StoredCommitState]
    var records: [RecordDisposition] = []
    var steps: [CommitWrites] = []
    var step = CommitWrites()
    var inStep: Set<Int64> = []

    init(pipeline: Pipeline, rules: StorageRules, known: [Int64: StoredCommitState]) {
        self.pipeline = pipeline
        self.rules = rules
        self.known = known
    }

    mutating func plan(_ result: RecordResult) {
        let id = result.recordID
        guard let state = known[id], state.generation == result.generation, !state.heldByAnother else {
            records.append(.skipped(id))
            return
        }
        if inStep.contains(id) {
            steps.append(step)
            step = CommitWrites()
            inStep = []
        }
        inStep.insert(id)
        step.committed.append(id)
        if let projection = result.projection, let version = pipeline.projectionVersion {
            step.projections.append(ProjectionWrite(
                recordID: id, generation: result.generation, version: version, payloadDigest: result.payloadDigest, bytes: projection
            ))
        }
        let (derived, values, failures) = result.committable
        step.failures += failures.map {
            FailureWrite(recordID: id, generation: result.generation, processor: $0.processor, kind: $0.kind, message: $0.message)
        }
        var changed: [Int] = []
        if !derived.isEmpty {
            let replaced = replacedProcessors(derived, values, state.values)
            changed = replaced.map(\.processor)
            if !replaced.isEmpty {
                step.values.append(ValueWrite(recordID: id, processors: derived, values: values))
                step.replaced.append(ReplacedWrite(recordID: id, generation: result.generation, processors: replaced))
                let row = storing(values, of: derived, in: state.values)
                known[id]?.values = row
            }
            step.stamps.append(StampWrite(
                recordID: id, generation: result.generation, payloadDigest: result.payloadDigest, processors: derived,
                inputDigests: result.inputDigests.filter { derived.contains($0.key) }
            ))
        }
        let disposition: CommitDisposition = !failures.isEmpty ? .failed : !changed.isEmpty ? .changed : .unchanged
        records.append(RecordDisposition(
            recordID: id, disposition: disposition, derived: derived, failed: failures.map(\.processor), changed: changed
        ))
    }

    /// The processors among `derived` whose stored values `values` (all of `derived`'s columns, in
    /// order) change, with what they held: every one of them when the record has no row of derived
    /// values, or the store did not read a processor's values.
    private func replacedProcessors(_ derived: [Int], _ values: [DerivedValue], _ stored: [Int: [DerivedValue]]?) -> [ReplacedProcessor] {
        var replaced: [ReplacedProcessor] = []
        var offset = 0
        for index in derived {
            let columns = pipeline.processors[index].columns
            let new = values[offset..<offset + columns.count]
            offset += columns.count
            guard let stored, let old = stored[index], old.count == columns.count else {
                replaced.append(ReplacedProcessor(processor: index, old: .defaults))
                continue
            }
            let unchanged = zip(zip(old, new), columns).allSatisfy { pair, column in
                rules.isUnchanged(pair.0, byStoring: pair.1, in: column.type)
            }
            if !unchanged {
                replaced.append(ReplacedProcessor(processor: index, old: .values(old)))
            }
        }
        return replaced
    }

    /// The record's row of values once `values` of `derived` are written into `row`: a row created
    /// by the write holds its other columns' defaults; every value as the store holds it.
    private func storing(_ values: [DerivedValue], of derived: [Int], in row: [Int: [DerivedValue]]?) -> [Int: [DerivedValue]] {
        var row = row ?? Dictionary(uniqueKeysWithValues: pipeline.processors.indices.map { index in
            (index, pipeline.processors[index].columns.map { rules.stored($0.defaultValue, in: $0.type) })
        })
        var offset = 0
        for index in derived {
            let columns = pipeline.processors[index].columns
            row[index] = zip(values[offset..<offset + columns.count], columns).map { rules.stored($0, in: $1.type) }
            offset += columns.count
        }
        return row
    }

    func finishedSteps() -> [CommitWrites] {
        inStep.isEmpty ? steps : steps + [step]
    }
}
