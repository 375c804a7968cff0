import Rederive

/// A fixture as the checks use it: the store author's ``StoreFixture``, with the steps the checks
/// share (seeding, running, reading back), each noting what differs in the check's expectations.
struct CheckedFixture: Sendable {
    let base: StoreFixture
    let expect: Expectations

    init(_ base: StoreFixture, _ expect: Expectations) {
        self.base = base
        self.expect = expect
    }

    var store: any StoreFixture.Store { base.store }
    var sharesDerivation: Bool { base.sharesDerivation }
    var importPayloads: @Sendable ([(key: String, payload: [UInt8])], Pipeline) async throws -> ImportCounts { base.importPayloads }
    var deleteRecord: @Sendable (String, Pipeline) async throws -> Void { base.deleteRecord }
    var removeStamp: @Sendable (Int64, String, Pipeline) async throws -> Void { base.removeStamp }
    var overwriteProjection: (@Sendable (Int64, [UInt8], Pipeline) async throws -> Void)? { base.overwriteProjection }

    /// The store's pauses and cancels, required.
    func control() throws -> any RunControlling {
        try expect.require(store.runControl, "store.runControl", "the store keeps no pauses or cancels")
    }

    /// Prepares the pipeline and imports `count` items `k0`, `k1`, … (``ConformancePipeline/item(_:_:)``).
    func seed(_ pipeline: Pipeline, count: Int, label: (Int) -> String = { "s\($0)" }) async throws {
        try await store.prepare(pipeline)
        let payloads = (0..<count).map { (key: "k\($0)", payload: ConformancePipeline.item(label($0), [Double($0), 1, 2])) }
        let counts = try await importPayloads(payloads, pipeline)
        expect.equal(counts, ImportCounts(inserted: count), "the import's counts")
    }

    /// Replaces the payload of `key`.
    func replace(_ key: String, label: String, values: [Double], in pipeline: Pipeline) async throws {
        let counts = try await importPayloads([(key, ConformancePipeline.item(label, values))], pipeline)
        expect.equal(counts, ImportCounts(replaced: 1), "the import's counts of \(key) replaced")
    }

    /// Derives every stale record with the public runner.
    @discardableResult
    func run(_ pipeline: Pipeline, retryFailed: Bool = false) async throws -> RunSummary {
        try await Runner(
            store: store, pipelines: [pipeline], configuration: Runner.Configuration(parallelism: 2, retryFailed: retryFailed)
        ).run()
    }

    /// Takes a lease for a made-up process, throwing when the store says it is held. It lasts longer
    /// than any check, unless the check says otherwise: a loaded machine can pause a check for tens of
    /// seconds, and a lease that lapsed then would fail it for a reason it does not check.
    func lease(_ processID: Int32, lasting duration: Duration = .seconds(900)) async throws -> WorkerLease {
        switch try await store.acquireLease(for: WorkerIdentity(host: "conformance", processID: processID), duration: duration) {
        case .acquired(let lease): return lease
        case .held(let holder): throw RederiveError(.leaseLost, "the lease is held by \(holder.worker)")
        }
    }

    /// Each processor's status, by name.
    func status(_ pipeline: Pipeline) async throws -> [String: ProcessorStatus] {
        Dictionary(uniqueKeysWithValues: try await store.status(of: pipeline).map { ($0.name, $0) })
    }

    /// The record ids by key, in id order.
    func ids(_ pipeline: Pipeline) async throws -> [String: Int64] {
        let records = try await store.storedRecords(of: pipeline, after: nil, limit: 1_000)
        return Dictionary(uniqueKeysWithValues: records.map { ($0.key ?? "", $0.recordID) })
    }

    /// The stored values of a record's output columns, by column name; nil without a row of derived values.
    func values(of key: String, _ pipeline: Pipeline) async throws -> [String: DerivedValue]? {
        let id = try expect.require(try await ids(pipeline)[key], "the id of \(key)")
        let row = try expect.require(try await store.storedRows(of: pipeline, recordIDs: [id])[id], "the stored row of \(key)")
        return row.values.map { Dictionary(uniqueKeysWithValues: zip(pipeline.outputColumns.map(\.name), $0)) }
    }
}
