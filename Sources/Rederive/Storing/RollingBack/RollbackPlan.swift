/// What rolling back one run does in one pipeline, decided in one place for every store: for each
/// entry the run kept, whether it is put back or skipped and why (``RollbackSkip``), the rows to
/// write, and the ``RollbackReport``.
///
/// The plan is pure: made from the run, the pipeline as the rollback names it, and the
/// ``StoredRollbackEntry`` of each entry the run kept, which the store read inside its transaction.
/// A store then writes, in that same transaction, the values and stamps of ``restored``, marks
/// ``stale`` not current, and forgets what it kept for ``restored``; *how* is its own.
///
/// - A record the run stored more than once goes back to what it held before the run's first
///   write: stores keep the values and stamp the first write replaced, with the generation the last
///   one derived from.
/// - A record's payload counts as unchanged since the run when its generation now is one the run's
///   kept entries of the record were derived from: the run's last write of the record was then
///   derived from the payload it has now.
/// - A restored stamp is current only if it was, and for the payload the record has now.
/// - Processors that read a restored processor's values are made stale for the record, unless
///   restored as well: they were derived from the values now replaced.
public struct RollbackPlan: Sendable {
    /// What the rollback puts back and what it skips, in record and processor order.
    public let report: RollbackReport
    /// The entries to put back, in record and processor order.
    public let restored: [RestoredEntry]
    /// The dependents of restored entries to mark not current, each once.
    public let stale: [StaleEntry]

    /// The plan for rolling back run `runID` in `pipeline`, given the entries the run kept there.
    public init(run runID: Int64, pipeline: Pipeline, kept: [StoredRollbackEntry]) {
        let entries = kept.sorted { ($0.recordID, $0.processor) < ($1.recordID, $1.processor) }
        var generations: [Int64: Set<Int64>] = [:]
        for entry in entries {
            generations[entry.recordID, default: []].insert(entry.derivedGeneration)
        }
        var report = RollbackReport()
        var restored: [RestoredEntry] = []
        for entry in entries {
            let unchanged = entry.currentGeneration.map { generations[entry.recordID]?.contains($0) == true } ?? false
            let skip = RollbackSkip.first(for: entry, run: runID, payloadUnchanged: unchanged, in: pipeline)
            report.add(RollbackReport.Entry(
                pipeline: pipeline.name, recordID: entry.recordID, key: entry.key, processor: entry.processor,
                reason: skip?.reason(run: runID, processor: entry.processor)
            ))
            guard skip == nil, let index = pipeline.processors.firstIndex(where: { $0.name == entry.processor }) else { continue }
            let stamp: RestoredStamp = entry.stamp.map { .kept(current: $0.current && $0.generation == entry.currentGeneration) } ?? .removed
            let values = pipeline.processors[index].columns.map { entry.values[$0.name] ?? $0.defaultValue }
            restored.append(RestoredEntry(recordID: entry.recordID, processor: index, values: values, stamp: stamp))
        }
        self.report = report
        self.restored = restored
        self.stale = Self.dependents(of: restored, in: pipeline)
    }

    /// The processors that read a restored one's values, per record, unless restored too.
    private static func dependents(of restored: [RestoredEntry], in pipeline: Pipeline) -> [StaleEntry] {
        let restoredPairs = Set(restored.map { StaleEntry(recordID: $0.recordID, processor: $0.processor) })
        var seen: Set<StaleEntry> = []
        var stale: [StaleEntry] = []
        for entry in restored {
            for name in pipeline.dependents(of: pipeline.processors[entry.processor].name) {
                guard let index = pipeline.processors.firstIndex(where: { $0.name == name }) else { continue }
                let dependent = StaleEntry(recordID: entry.recordID, processor: index)
                if !restoredPairs.contains(dependent), seen.insert(dependent).inserted {
                    stale.append(dependent)
                }
            }
        }
        return stale
    }
}

extension RollbackReport {
    /// Adds an entry: to ``restored`` without a reason, else to ``skipped``.
    mutating func add(_ entry: Entry) {
        if entry.reason == nil { restored.append(entry) } else { skipped.append(entry) }
    }

    /// Adds what another rollback, of another pipeline, put back and skipped.
    public mutating func add(_ other: RollbackReport) {
        restored += other.restored
        skipped += other.skipped
    }
}
