import Foundation
import GRDB
import Rederive
@testable import RederiveMemory
import RederiveSQLite
import RederiveStoreTesting
import Synchronization
import Testing
#if PostgreSQL
import RederivePostgres
import RederivePostgresTestSupport
#endif

/// One kind of store the conformance suite runs against; each check makes a fresh, empty one.
///
/// Adding a store to rederive means implementing the store protocols and adding it here: the suite
/// (`RederiveStoreTesting`) is written once, against the protocols, and every check runs on every store.
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

    /// What a hand in the database changed, when it changed one row.
    struct Changed: Error, CustomStringConvertible {
        let description: String
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
            removeStamp: { recordID, processor, pipeline in
                try await store.write { db in
                    try db.execute(
                        sql: "DELETE FROM rederive_stamps WHERE pipeline = ? AND processor = ? AND record_id = ?",
                        arguments: [pipeline.name, processor, recordID]
                    )
                    guard db.changesCount == 1 else { throw Changed(description: "\(db.changesCount) stamps removed, not 1") }
                }
            },
            overwriteProjection: { recordID, bytes, pipeline in
                try await store.write { db in
                    try db.execute(
                        sql: "UPDATE rederive_projections SET bytes = ? WHERE pipeline = ? AND record_id = ?",
                        arguments: [Data(bytes), pipeline.name, recordID]
                    )
                    guard db.changesCount == 1 else { throw Changed(description: "\(db.changesCount) projections overwritten, not 1") }
                }
            },
            close: { try? FileManager.default.removeItem(at: directory) }
        )
    }

    /// The in-memory store. Its fixture reaches into the store's state (`@testable`) for the two changes
    /// only a hand in a database makes, which the store offers no public way to make.
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
            removeStamp: { recordID, processor, pipeline in
                try store.state.withLock { state in
                    let key = ProcessorRecord(pipeline: pipeline.name, processor: processor, recordID: recordID)
                    guard state.stamps.removeValue(forKey: key) != nil else { throw Changed(description: "no stamp of \(key) to remove") }
                }
            },
            overwriteProjection: { recordID, bytes, pipeline in
                try store.state.withLock { state in
                    let key = ProjectionKey(pipeline: pipeline.name, recordID: recordID)
                    guard let stored = state.projections[key] else { throw Changed(description: "no projection of \(key) to overwrite") }
                    state.projections[key] = MemoryProjection(
                        generation: stored.generation, version: stored.version, checksum: stored.checksum,
                        payloadDigest: stored.payloadDigest, bytes: bytes
                    )
                }
            },
            close: {}
        )
    }

    #if PostgreSQL
    static let postgres = StoreUnderTest(name: "PostgreSQL") {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let store = try await PostgresStore(url: url)
        /// Runs a statement that returns the one record id it changed.
        @Sendable func changeOne(_ recordID: Int64, _ sql: String) throws {
            let changed = try server.psql(PostgresServer.databaseName(in: url), sql).trimmingCharacters(in: .whitespacesAndNewlines)
            guard changed == String(recordID) else { throw Changed(description: "changed \"\(changed)\", not record \(recordID)") }
        }
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
            removeStamp: { recordID, processor, pipeline in
                try changeOne(
                    recordID,
                    "DELETE FROM rederive_stamps WHERE pipeline = '\(pipeline.name)' AND processor = '\(processor)' AND record_id = \(recordID) RETURNING record_id"
                )
            },
            overwriteProjection: { recordID, bytes, pipeline in
                let hex = bytes.map { String(format: "%02x", $0) }.joined()
                try changeOne(
                    recordID,
                    "UPDATE rederive_projections SET bytes = '\\x\(hex)' WHERE pipeline = '\(pipeline.name)' AND record_id = \(recordID) RETURNING record_id"
                )
            },
            close: { store.close() }
        )
    }
    #endif
}
