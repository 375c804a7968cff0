import Rederive

/// A fresh, empty store under test, with what the checks need beyond the store protocols: writing
/// payloads as an app does, and a few changes that only the app or a hand in the database makes.
///
/// A store's author makes one for each check, on a store of its own (a new file, a new database),
/// and closes it once the check has run:
///
/// ```swift
/// let fixture = StoreFixture(
///     store: store, sharesDerivation: false,
///     importPayloads: { payloads, pipeline in try await store.importPayloads(payloads, into: pipeline) },
///     deleteRecord: { key, pipeline in try await store.deleteRow(key, from: pipeline.table) },
///     removeStamp: { recordID, processor, pipeline in try await store.deleteStamp(recordID, processor, pipeline.name) },
///     overwriteProjection: nil,
///     close: { store.close() }
/// )
/// ```
///
/// A closure that finds nothing to change (no such record, stamp or projection) throws: the check
/// that called it then fails, rather than testing a store left as it was.
public struct StoreFixture: Sendable {
    /// What the checks hold a store to: the protocols every command of the engine needs. What it
    /// offers beyond them (`RecordStore/runControl`, `RecordStore/projectionStore`, `RecordStore/changeSignaling`)
    /// is checked by the checks of each ``StoreCapability``.
    public typealias Store = RecordStore & StoreReporting & StoreAdministration & StoredValueReading & VerificationSource

    /// The store, fresh and empty: no pipeline prepared, no record, no run.
    public var store: any Store

    /// Whether many processes derive the store at once, each with a lease of its own (a store shared
    /// by many hosts), rather than one at a time (a database file): a second lease is then granted
    /// and joins the first one's run, where otherwise it is refused and names the holder.
    public var sharesDerivation: Bool

    /// Inserts or replaces payloads by key, in one transaction, into the pipeline's table (prepared
    /// already), and counts what it did: a payload stored already, byte for byte, is unchanged.
    public var importPayloads: @Sendable (_ payloads: [(key: String, payload: [UInt8])], _ pipeline: Pipeline) async throws -> ImportCounts

    /// Deletes the record with this key, as the app deleting its row would.
    public var deleteRecord: @Sendable (_ key: String, _ pipeline: Pipeline) async throws -> Void

    /// Deletes a record's stamp of one processor and nothing else, as another program or a hand in
    /// the database would; throws when the record has no such stamp.
    public var removeStamp: @Sendable (_ recordID: Int64, _ processor: String, _ pipeline: Pipeline) async throws -> Void

    /// Replaces the bytes of a record's stored projection and nothing else, as a fault of the disk or
    /// another program would, so that its checksum no longer matches; throws when the record has no
    /// projection. Nil for a store that keeps no projections.
    public var overwriteProjection: (@Sendable (_ recordID: Int64, _ bytes: [UInt8], _ pipeline: Pipeline) async throws -> Void)?

    /// Closes the store and removes what it left behind (a file, a database); called once the check ran.
    public var close: @Sendable () async -> Void

    /// A fixture of `store`, with what the checks need of it beyond its protocols.
    public init(
        store: any Store,
        sharesDerivation: Bool,
        importPayloads: @escaping @Sendable (_ payloads: [(key: String, payload: [UInt8])], _ pipeline: Pipeline) async throws -> ImportCounts,
        deleteRecord: @escaping @Sendable (_ key: String, _ pipeline: Pipeline) async throws -> Void,
        removeStamp: @escaping @Sendable (_ recordID: Int64, _ processor: String, _ pipeline: Pipeline) async throws -> Void,
        overwriteProjection: (@Sendable (_ recordID: Int64, _ bytes: [UInt8], _ pipeline: Pipeline) async throws -> Void)?,
        close: @escaping @Sendable () async -> Void
    ) {
        self.store = store
        self.sharesDerivation = sharesDerivation
        self.importPayloads = importPayloads
        self.deleteRecord = deleteRecord
        self.removeStamp = removeStamp
        self.overwriteProjection = overwriteProjection
        self.close = close
    }
}
