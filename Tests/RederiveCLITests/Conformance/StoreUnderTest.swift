import Foundation
import GRDB
import Rederive
@testable import RederiveMemory
import RederiveSQLite
import Synchronization
import Testing
#if PostgreSQL
import RederivePostgres
#endif

/// Everything a store offers commands and runs: what the conformance suite holds every store to.
typealias ConformingStore = RecordStore & StoreReporting & StoreAdministration & StoredValueReading & VerificationSource
    & RunControlling

/// One kind of store the conformance suite runs against; each test makes a fresh, empty one.
///
/// Adding a store to rederive means implementing the store protocols and adding it here: the suite
/// is written once, against the protocols, and every check runs on every store.
struct StoreUnderTest: Sendable, CustomTestStringConvertible {
    let name: String
    /// Makes a new, empty store of this kind.
    let make: @Sendable () async throws -> StoreFixture

    var testDescription: String { name }

    /// SQLite and the in-memory store always; PostgreSQL in a build with the trait, where its server
    /// binaries are present or required (`REDERIVE_REQUIRE_POSTGRES=1`).
    static var all: [StoreUnderTest] {
        var stores = [sqlite, memory]
        #if PostgreSQL
        if PostgresServer.testsRun { stores.append(postgres) }
        #endif
        return stores
    }

    static let sqlite = StoreUnderTest(name: "SQLite") {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
        return StoreFixture(
            store: store, sharesDerivation: false,
            importPayloads: { payloads, pipeline in try await store.importPayloads(payloads, into: pipeline) },
            deleteRecord: { key, pipeline in
                try await store.write { db in
                    try db.execute(sql: "DELETE FROM \(pipeline.table) WHERE \(pipeline.keyColumn ?? "key") = ?", arguments: [key])
                }
            },
            close: { try? FileManager.default.removeItem(at: directory) },
            removeStamp: { recordID, processor, pipeline in
                try await store.write { db in
                    try db.execute(
                        sql: "DELETE FROM rederive_stamps WHERE pipeline = ? AND processor = ? AND record_id = ?",
                        arguments: [pipeline.name, processor, recordID]
                    )
                    #expect(db.changesCount == 1)
                }
            },
            overwriteProjection: { recordID, bytes, pipeline in
                try await store.write { db in
                    try db.execute(
                        sql: "UPDATE rederive_projections SET bytes = ? WHERE pipeline = ? AND record_id = ?",
                        arguments: [Data(bytes), pipeline.name, recordID]
                    )
                    #expect(db.changesCount == 1)
                }
            }
        )
    }

    static let memory = StoreUnderTest(name: "memory") {
        let store = MemoryStore()
        return StoreFixture(
            store: store, sharesDerivation: true,
            importPayloads: { payloads, pipeline in try await store.importPayloads(payloads, into: pipeline) },
            deleteRecord: { key, pipeline in
                guard let id = try await store.storedPayloads(of: pipeline, matching: nil, after: nil, limit: .max, includingPayloads: false)
                    .first(where: { $0.key == key })?.recordID
                else { throw RederiveError(.unknownName, "no record \(key)") }
                try store.delete(id, from: pipeline)
            },
            close: {},
            removeStamp: { recordID, processor, pipeline in
                try store.state.withLock { state in
                    let key = ProcessorRecord(pipeline: pipeline.name, processor: processor, recordID: recordID)
                    try #require(state.stamps.removeValue(forKey: key) != nil)
                }
            },
            overwriteProjection: { recordID, bytes, pipeline in
                try store.state.withLock { state in
                    let key = ProjectionKey(pipeline: pipeline.name, recordID: recordID)
                    let stored = try #require(state.projections[key])
                    state.projections[key] = MemoryProjection(
                        generation: stored.generation, version: stored.version, checksum: stored.checksum,
                        payloadDigest: stored.payloadDigest, bytes: bytes
                    )
                }
            }
        )
    }

    #if PostgreSQL
    static let postgres = StoreUnderTest(name: "PostgreSQL") {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let store = try await PostgresStore(url: url)
        return StoreFixture(
            store: store, sharesDerivation: true,
            importPayloads: { payloads, pipeline in
                let outcome = try await store.importPayloads(payloads, into: pipeline)
                return ImportCounts(inserted: outcome.inserted, replaced: outcome.replaced, unchanged: outcome.unchanged)
            },
            deleteRecord: { key, pipeline in
                try server.psql(
                    PostgresServer.databaseName(in: url),
                    "DELETE FROM \(pipeline.table) WHERE \(pipeline.keyColumn ?? "key") = '\(key)'"
                )
            },
            close: { store.close() },
            removeStamp: { recordID, processor, pipeline in
                let updated = try server.psql(
                    PostgresServer.databaseName(in: url),
                    "UPDATE rederive_stamps SET processors = processors - '\(processor)' WHERE pipeline = '\(pipeline.name)' AND record_id = \(recordID) AND processors ? '\(processor)' RETURNING record_id"
                )
                #expect(updated.trimmingCharacters(in: .whitespacesAndNewlines) == String(recordID))
            },
            overwriteProjection: { recordID, bytes, pipeline in
                let hex = bytes.map { String(format: "%02x", $0) }.joined()
                let updated = try server.psql(
                    PostgresServer.databaseName(in: url),
                    "UPDATE rederive_projections SET bytes = '\\x\(hex)' WHERE pipeline = '\(pipeline.name)' AND record_id = \(recordID) RETURNING record_id"
                )
                #expect(updated.trimmingCharacters(in: .whitespacesAndNewlines) == String(recordID))
            }
        )
    }
    #endif
}

/// A fresh store under test, with what the suite needs beyond the protocols: writing payloads as
/// an app or `rederive import` does, and deleting a record as the app would.
struct StoreFixture: Sendable {
    let store: any ConformingStore
    /// Whether many processes derive the store at once, each with a lease of its own (PostgreSQL,
    /// the in-memory store), rather than one at a time (SQLite).
    let sharesDerivation: Bool
    /// Inserts or replaces payloads by key in one transaction.
    let importPayloads: @Sendable ([(key: String, payload: [UInt8])], Pipeline) async throws -> ImportCounts
    /// Deletes the record with this key, as the app deleting its row would.
    let deleteRecord: @Sendable (String, Pipeline) async throws -> Void
    let close: @Sendable () -> Void
    /// Deletes a record's stamp of one processor and nothing else, as another program or a hand in the
    /// database would.
    let removeStamp: @Sendable (_ recordID: Int64, _ processor: String, Pipeline) async throws -> Void
    /// Replaces the bytes of a record's stored projection and nothing else, as a fault of the disk or
    /// another program would: its checksum no longer matches. Nil for a store that keeps no projections.
    var overwriteProjection: (@Sendable (_ recordID: Int64, _ bytes: [UInt8], Pipeline) async throws -> Void)? = nil

    /// Runs `body` on a fresh store of `kind`, closing it afterwards.
    static func with<T>(_ kind: StoreUnderTest, _ body: (StoreFixture) async throws -> T) async throws -> T {
        let fixture = try await kind.make()
        defer { fixture.close() }
        return try await body(fixture)
    }

    /// Prepares the pipeline and imports `count` items `k0`, `k1`, … (``ConformancePipeline/item(_:)``).
    func seed(_ pipeline: Pipeline, count: Int, label: (Int) -> String = { "s\($0)" }) async throws {
        try await store.prepare(pipeline)
        let payloads = (0..<count).map { (key: "k\($0)", payload: ConformancePipeline.item(label($0), [Double($0), 1, 2])) }
        let counts = try await importPayloads(payloads, pipeline)
        #expect(counts == ImportCounts(inserted: count))
    }

    /// Replaces the payload of `key`.
    func replace(_ key: String, label: String, values: [Double], in pipeline: Pipeline) async throws {
        let counts = try await importPayloads([(key, ConformancePipeline.item(label, values))], pipeline)
        #expect(counts == ImportCounts(replaced: 1))
    }

    /// Derives every stale record with the public runner.
    @discardableResult
    func run(_ pipeline: Pipeline, retryFailed: Bool = false) async throws -> RunSummary {
        try await Runner(
            store: store, pipelines: [pipeline], configuration: Runner.Configuration(parallelism: 2, retryFailed: retryFailed)
        ).run()
    }

    /// Takes a lease for a made-up process, failing the test when the store says it is held. It lasts
    /// longer than any test, unless the test says otherwise: a loaded machine can pause a test for
    /// tens of seconds, and a lease that lapsed then would fail it for a reason it does not test.
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
        let id = try #require(try await ids(pipeline)[key])
        let row = try #require(try await store.storedRows(of: pipeline, recordIDs: [id])[id])
        return row.values.map { Dictionary(uniqueKeysWithValues: zip(pipeline.outputColumns.map(\.name), $0)) }
    }
}
