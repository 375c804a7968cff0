import Rederive
import RederiveSQLite
#if PostgreSQL
import RederivePostgres
#endif

/// What every command sees of a store: the runner's interface, reports and administration, and
/// writing payloads under their keys. SQLite and PostgreSQL both provide all of it; what only one of
/// them can do is asked of its concrete type (``DatabaseOptions/openSQLiteStore(for:)``).
protocol CommandStore: RecordStore, StoreReporting {
    /// Inserts or replaces payloads by key in one transaction; identical payloads are left alone.
    func writePayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts
}

extension SQLiteStore: CommandStore {
    func writePayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
        try await importPayloads(payloads, into: pipeline)
    }
}

#if PostgreSQL
extension PostgresStore: CommandStore {
    func writePayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
        let outcome = try await importPayloads(payloads, into: pipeline)
        return ImportCounts(inserted: outcome.inserted, replaced: outcome.replaced, unchanged: outcome.unchanged)
    }
}
#endif
