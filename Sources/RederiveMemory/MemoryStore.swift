import Rederive
import Synchronization

/// A store that keeps everything in memory: records and payloads, derived values, stamps, failures,
/// runs, what runs replaced, and leases. Nothing is written to disk, and everything is gone with it.
///
/// It implements every store protocol (`RecordStore`, `StoreReporting`, `StoreAdministration`,
/// `StoredValueReading`, `VerificationSource`) with the SQLite store's semantics, and passes the
/// same conformance suite: an app tests its pipelines against it without a database file.
///
/// ```swift
/// let store = MemoryStore()
/// try await store.prepare(recipes)
/// _ = try await store.importPayloads([("stew", Array(#"{"title": "Stew"}"#.utf8))], into: recipes)
/// let summary = try await Runner(store: store, pipelines: [recipes]).run()
/// ```
///
/// Like a store shared by many hosts, it lets several runners derive at once: each takes a lease of
/// its own, claims records no other live lease holds, and commits fenced by its lease; a lease that
/// is not renewed expires, and its records go to the others.
///
/// Every operation runs under one lock, as one transaction: simple rather than fast.
public final class MemoryStore: RecordStore {
    /// Everything the store holds.
    let state = Mutex(MemoryState())
    /// How many of the newest runs that changed values keep the values they replaced, for rollback.
    public let replacedValuesRunLimit: Int

    /// An empty store. Only the newest `replacedValuesRunLimit` runs that changed values keep what they replaced.
    public init(replacedValuesRunLimit: Int = 20) {
        self.replacedValuesRunLimit = max(0, replacedValuesRunLimit)
    }

    /// How many records a worker claims at a time: claims are cheap here, so few keep workers evenly busy.
    public var preferredClaimSize: Int { 32 }

    /// A commit holds the store's lock, which every other caller waits for, as SQLite's write lock.
    public var preferredBatchDuration: Duration { .milliseconds(50) }

    /// Never out of reach: the store has no outage to log.
    public var logsOutages: Bool { false }

    /// Pauses and cancels are kept with the records.
    public var runControl: (any RunControlling)? { self }

    /// Projections are kept with the records.
    public var projectionStore: (any ProjectionStoring)? { self }

    /// The store has no schema of the app's to migrate.
    public var schemaMigrations: (any SchemaMigrationApplier)? { nil }

    /// One process holds the store: no run is shared.
    public var sharedRuns: (any SharedRunReporting)? { nil }

    /// Changes are seen by a revision the store counts, looked at an interval.
    public var changeSignaling: (any ChangeSignaling)? { self }

    /// Nothing to close: everything is gone with the store.
    public func close() async {}

    /// Makes the store ready for a pipeline: its table when missing, and the destination of its
    /// derived values with every declared column, a new column holding its default in every record.
    public func prepare(_ pipeline: Pipeline) async throws {
        state.withLock { state in
            Self.prepare(pipeline, &state)
        }
    }

    /// ``prepare(_:)`` within a transaction.
    static func prepare(_ pipeline: Pipeline, _ state: inout MemoryState) {
        if state.tables[pipeline.table] == nil {
            state.tables[pipeline.table] = MemoryTable()
        }
        let name = destinationName(of: pipeline)
        var destination = state.destinations[name]
            ?? MemoryDestination(table: pipeline.table, inline: pipeline.layout == .inline)
        for column in pipeline.outputColumns where destination.defaults[column.name] == nil {
            destination.defaults[column.name] = MemoryStorage.rules.stored(column.defaultValue, in: column.type)
        }
        state.destinations[name] = destination
    }

    /// Where a pipeline's derived values live: its companion table, or its own table.
    static func destinationName(of pipeline: Pipeline) -> String {
        switch pipeline.layout {
        case .companion(let table): table
        case .inline: pipeline.table
        }
    }

    // MARK: Writing records, as an app does

    /// Inserts a record into the pipeline's table and returns its id, as the app writing a row would:
    /// the record is stale for every processor. The table is created when missing.
    ///
    /// - Throws: `RederiveError.Code.invalidArgument` when the pipeline has a key column and `key` is
    ///   nil, or another record has that key already.
    @discardableResult
    public func insert(_ payload: [UInt8], key: String? = nil, into pipeline: Pipeline) throws -> Int64 {
        try state.withLock { state in
            try Self.insert(payload, key: key, into: pipeline, &state)
        }
    }

    /// ``insert(_:key:into:)`` within a transaction.
    static func insert(_ payload: [UInt8], key: String?, into pipeline: Pipeline, _ state: inout MemoryState) throws -> Int64 {
        var table = state.tables[pipeline.table] ?? MemoryTable()
        if pipeline.keyColumn != nil {
            guard let key else {
                throw RederiveError(.invalidArgument, "table \"\(pipeline.table)\" needs a key for every record")
            }
            guard table.keys[key] == nil else {
                throw RederiveError(.invalidArgument, "table \"\(pipeline.table)\" has a record with key \"\(key)\" already")
            }
        }
        let id = table.nextID
        table.nextID += 1
        table.records[id] = MemoryRecord(key: pipeline.keyColumn == nil ? nil : key, payload: payload, generation: 0)
        if pipeline.keyColumn != nil, let key { table.keys[key] = id }
        state.tables[pipeline.table] = table
        state.renew(id, of: pipeline.table)
        return id
    }

    /// Replaces a record's payload, as the app writing it would: when the bytes differ, the record is
    /// stale for every processor, and a result derived from the old payload is no longer committed.
    ///
    /// - Throws: `RederiveError.Code.unknownName` when the table has no such record.
    public func replacePayload(of recordID: Int64, in pipeline: Pipeline, with payload: [UInt8]) throws {
        try state.withLock { state in
            guard let record = state.tables[pipeline.table]?.records[recordID] else {
                throw RederiveError(.unknownName, "table \"\(pipeline.table)\" has no record \(recordID)")
            }
            guard record.payload != payload else { return }
            state.tables[pipeline.table]?.records[recordID]?.payload = payload
            state.renew(recordID, of: pipeline.table)
        }
    }

    /// Deletes a record with its derived values, stamps and failures, as the app deleting its row would.
    ///
    /// - Throws: `RederiveError.Code.unknownName` when the table has no such record.
    public func delete(_ recordID: Int64, from pipeline: Pipeline) throws {
        try state.withLock { state in
            guard state.tables[pipeline.table]?.records[recordID] != nil else {
                throw RederiveError(.unknownName, "table \"\(pipeline.table)\" has no record \(recordID)")
            }
            state.forget(recordID, of: pipeline.table)
        }
    }
}
