import Rederive
import RederiveSQLite
#if PostgreSQL
import RederivePostgres
#endif

/// What every command sees of a store: the runner's interface, reports, administration, reading
/// what is stored for previews and verification, and writing payloads under their keys. SQLite and
/// PostgreSQL both provide all of it; what only one of them can do is asked of its concrete type.
package protocol CommandStore: RecordStore, StoreReporting, StoreAdministration, StoredValueReading, VerificationSource {
    /// Inserts or replaces payloads by key in one transaction; identical payloads are left alone.
    func writePayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts

    /// Writes the payloads `next` returns until it returns nil, in one transaction, holding only a few
    /// at a time; `next` may block until its next item is ready. When it throws, nothing of the import
    /// is stored.
    func streamPayloads(into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?) async throws -> ImportCounts

    /// Up to `limit` records with ids greater than `cursor`, in id order, that satisfy `condition` (a SQL
    /// condition on the pipeline's table, evaluated read-only; nil for all): each record's key and, when
    /// `includingPayloads`, its payload as stored. Pages through the records for export.
    func storedPayloads(
        of pipeline: Pipeline, matching condition: String?, after cursor: Int64?, limit: Int, includingPayloads: Bool
    ) async throws -> [StoredPayload]
}

extension SQLiteStore: CommandStore {
    package func writePayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
        try await importPayloads(payloads, into: pipeline)
    }

    /// Streams the items into one transaction as they come, so that they are never all held at once.
    package func streamPayloads(into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?) async throws -> ImportCounts {
        try await importPayloads(into: pipeline, from: next)
    }
}

#if PostgreSQL
extension PostgresStore: CommandStore {
    package func writePayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
        ImportCounts(try await importPayloads(payloads, into: pipeline))
    }

    /// Streams the items to the server a statement at a time, inside one transaction.
    package func streamPayloads(into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?) async throws -> ImportCounts {
        ImportCounts(try await importPayloads(into: pipeline, from: next))
    }
}

extension ImportCounts {
    init(_ outcome: PostgresStore.ImportOutcome) {
        self.init(inserted: outcome.inserted, replaced: outcome.replaced, unchanged: outcome.unchanged)
    }
}
#endif
