import RederiveCodec

/// Re-derives stored records in memory, writing nothing, and lists every stored value that differs
/// from what the current processors produce from the record's current payload.
///
/// It answers "can I trust these columns?" after an incident or before trusting a restored backup.
///
/// Which values are compared: a processor's values of a record are compared when rederive wrote them
/// (the record has a stamp for the processor, from any version, current or not) or when they differ
/// from the columns' declared defaults (someone else wrote them). Values never written make no claim
/// and are counted in ``Report/notDerived``; a record that fails now and holds no values is only a
/// failure, listed by `rederive failures`. A record with stored values that fails to derive now
/// differs in each of those columns, with the failure as the derived side.
///
/// Stale records are compared too: after a version bump their values differ until the next run.
/// ``Difference/upToDate`` tells those apart from values that a current stamp vouches for, which
/// should never differ.
///
/// ```swift
/// let report = try await Verifier(source: store, pipelines: [RoomScan.pipeline]).verify()
/// for difference in report.differences { print(difference.key ?? "", difference.column) }
/// ```
public struct Verifier: Sendable {
    /// Which records to verify.
    public enum Scope: Sendable, Hashable {
        /// Every record.
        case all
        /// Up to this many records chosen at random.
        case sample(Int)
    }

    /// One stored value that is not what the current processor produces.
    public struct Difference: Sendable, Hashable {
        /// The pipeline of the record.
        public let pipeline: String
        /// The record's integer id.
        public let recordID: Int64
        /// The record's readable key, when its pipeline has a key column.
        public let key: String?
        /// The processor that owns the column.
        public let processor: String
        /// The column whose stored value differs.
        public let column: String
        /// The value stored now.
        public let stored: DerivedValue
        /// The value derived now; nil when deriving failed.
        public let derived: DerivedValue?
        /// Why deriving failed now, when it did: the kind and message a run would record.
        public let failure: String?
        /// Whether a current stamp at the processor's version claims the stored value is right.
        public let upToDate: Bool
    }

    /// What a verification found.
    public struct Report: Sendable {
        /// Records read.
        public var records = 0
        /// Record and processor pairs whose stored values were compared.
        public var compared = 0
        /// Record and processor pairs without stored values, not compared.
        public var notDerived = 0
        /// Every differing value, in record and column order.
        public var differences: [Difference] = []

        /// An empty report, which ``Verifier/verify()`` fills.
        public init() {}
    }

    /// Where the records are read from; nothing is written.
    public let source: any VerificationSource
    /// The pipelines whose records are verified.
    public let pipelines: [Pipeline]
    /// Every record, or a random sample.
    public let scope: Scope
    /// Records derived at once.
    public let parallelism: Int
    /// Payloads that inflate to more than this many bytes fail, as in a run.
    public let maximumPayloadSize: Int

    /// Creates a verifier; nothing is read until ``verify()``.
    ///
    /// - Parameters:
    ///   - source: Where the records are read from.
    ///   - pipelines: The pipelines whose records are verified.
    ///   - scope: Every record (the default), or a random sample.
    ///   - parallelism: Records derived at once.
    ///   - maximumPayloadSize: Payloads that inflate to more than this many bytes fail, as in a run.
    public init(
        source: any VerificationSource,
        pipelines: [Pipeline],
        scope: Scope = .all,
        parallelism: Int = 4,
        maximumPayloadSize: Int = PayloadCodec.defaultMaximumSize
    ) {
        self.source = source
        self.pipelines = pipelines
        self.scope = scope
        self.parallelism = max(1, parallelism)
        self.maximumPayloadSize = maximumPayloadSize
    }

    /// Reads and re-derives the records in scope and returns every difference.
    public func verify() async throws -> Report {
        _ = try Registry(pipelines)
        var report = Report()
        let pageSize = 500
        let threads = WorkerThreads(count: parallelism, name: "rederive verify")
        defer { threads.stop() }
        for pipeline in pipelines {
            switch scope {
            case .all:
                var cursor: Int64?
                while true {
                    let page = try await source.storedRecords(of: pipeline, after: cursor, limit: pageSize)
                    guard let last = page.last else { break }
                    try await check(page, pipeline: pipeline, threads: threads, into: &report)
                    cursor = last.recordID
                }
            case .sample(let count):
                let ids = try await source.sampleRecordIDs(of: pipeline, count: count)
                for start in stride(from: 0, to: ids.count, by: pageSize) {
                    let page = try await source.storedRecords(of: pipeline, ids: Array(ids[start..<min(start + pageSize, ids.count)]))
                    try await check(page, pipeline: pipeline, threads: threads, into: &report)
                }
            }
        }
        return report
    }

    /// Compares a page of records on the worker threads; differences keep the page's order.
    private func check(
        _ page: [StoredRecord], pipeline: Pipeline, threads: WorkerThreads, into report: inout Report
    ) async throws {
        let codec = PayloadCodec(maximumSize: maximumPayloadSize)
        let rules = source.storageRules
        let partial = await threads.map(page) { record -> Result<Report, RederiveError> in
            var part = Report()
            do throws(RederiveError) {
                try Self.compare(record, pipeline: pipeline, codec: codec, rules: rules, into: &part)
                return .success(part)
            } catch {
                return .failure(error)
            }
        }
        var differences: [Difference] = []
        for outcome in partial {
            let part = try outcome.get()
            report.records += part.records
            report.compared += part.compared
            report.notDerived += part.notDerived
            differences += part.differences
        }
        let order = Dictionary(pipeline.outputColumns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        report.differences += differences.sorted {
            ($0.recordID, order[$0.column] ?? 0) < ($1.recordID, order[$1.column] ?? 0)
        }
    }

    /// Re-derives one record and compares each processor's stored values with the derived ones.
    static func compare(
        _ record: StoredRecord, pipeline: Pipeline, codec: PayloadCodec, rules: StorageRules, into report: inout Report
    ) throws(RederiveError) {
        report.records += 1
        let processors = pipeline.processors
        let claimed = processors.indices.filter { index in
            let columns = processors[index].columns
            let holdsDefaults = zip(record.values[index], columns).allSatisfy { stored, column in
                rules.isUnchanged(stored, byStoring: column.defaultValue, in: column.type)
            }
            return record.stamps[index] != nil || !holdsDefaults
        }
        report.notDerived += processors.count - claimed.count
        guard !claimed.isEmpty else { return }
        report.compared += claimed.count
        let derived = pipeline.evaluate(storedPayload: record.payload, selection: claimed, codec: codec)
        let outcomes = zip(claimed, derived).map { (processor: $0, outcome: $1) }
        if let error = pipeline.valueCountError(in: outcomes, recordID: record.recordID) { throw error }
        for (index, outcome) in outcomes {
            let processor = processors[index]
            let stamp = record.stamps[index]
            let upToDate = stamp?.current == true && stamp?.version == processor.version
            for (position, column) in processor.columns.enumerated() {
                let stored = rules.stored(record.values[index][position], in: column.type)
                let derived: DerivedValue?
                let failure: String?
                switch outcome {
                case .derived(let values):
                    if rules.isUnchanged(stored, byStoring: values[position], in: column.type) { continue }
                    derived = rules.stored(values[position], in: column.type)
                    failure = nil
                case .failed(let kind, let message):
                    derived = nil
                    failure = "\(kind.rawValue): \(message)"
                }
                report.differences.append(Difference(
                    pipeline: pipeline.name, recordID: record.recordID, key: record.key, processor: processor.name,
                    column: column.name, stored: stored, derived: derived, failure: failure, upToDate: upToDate
                ))
            }
        }
    }
}
