import Foundation
import Rederive
import RederiveCodec

/// Everything a ``MemoryStore`` holds, changed only under its lock: each store operation is one
/// transaction over this value, as each is one transaction on SQLite.
///
/// The bookkeeping mirrors the SQLite store's tables: records with their payload generation, stamps
/// and failures per pipeline, processor and record, runs, what runs replaced, and leases.
struct MemoryState {
    /// The pipelines' tables, by table name: records and their payloads.
    var tables: [String: MemoryTable] = [:]
    /// Where derived values live, by destination: a companion table's name, or the pipeline's own
    /// table's name for the inline layout.
    var destinations: [String: MemoryDestination] = [:]
    /// Which version derived a record's values for a processor, from which payload.
    var stamps: [ProcessorRecord: MemoryStamp] = [:]
    /// The last failure of a processor on a record.
    var failures: [ProcessorRecord: MemoryFailure] = [:]
    /// Every run, in id order.
    var runs: [MemoryRun] = []
    /// What each run replaced, for rollback.
    var replaced: [ReplacedKey: MemoryReplaced] = [:]
    /// The leases held now, by token: expired ones stay until another worker reaps them.
    var leases: [String: MemoryLease] = [:]
    /// Where each lease's claims of each pipeline stand; none when the next claim starts from the first id.
    var claimCursors: [ClaimKey: Int64] = [:]
    /// The next payload generation handed out: every payload written gets a new one.
    var nextGeneration: Int64 = 1
    /// The projections of pipelines that declare one, by pipeline and record.
    var projections: [ProjectionKey: MemoryProjection] = [:]
    /// The pauses in force, in the order they were asked for.
    var pauses: [RunControls.Pause] = []
    /// Counts the changes that can make records stale (payloads written, invalidations, rollbacks,
    /// resets), for a watcher to notice.
    var revision = 0

    /// The run with this id, by position.
    func runIndex(_ id: Int64) -> Int? {
        runs.firstIndex { $0.id == id }
    }

    /// Gives a record of `table` a new payload generation and makes its stamps and failures not
    /// current, as the SQLite store's triggers do whenever a payload is inserted or replaced.
    mutating func renew(_ recordID: Int64, of table: String) {
        tables[table]?.records[recordID]?.generation = nextGeneration
        revision += 1
        nextGeneration += 1
        for (key, stamp) in stamps where stamp.source == table && key.recordID == recordID {
            stamps[key]?.current = false
        }
        for (key, failure) in failures where failure.source == table && key.recordID == recordID {
            failures[key]?.current = false
        }
    }

    /// Removes a record with its bookkeeping and its row of derived values.
    mutating func forget(_ recordID: Int64, of table: String) {
        if let key = tables[table]?.records[recordID]?.key {
            tables[table]?.keys[key] = nil
        }
        tables[table]?.records[recordID] = nil
        stamps = stamps.filter { !($0.value.source == table && $0.key.recordID == recordID) }
        failures = failures.filter { !($0.value.source == table && $0.key.recordID == recordID) }
        for (name, destination) in destinations where destination.table == table {
            destinations[name]?.rows[recordID] = nil
        }
    }

    /// Whether a lease is still held: present, not reaped. An expired lease that nobody reaped is
    /// still its process's, as on SQLite, where nobody else derived meanwhile.
    func holds(_ lease: WorkerLease) -> Bool {
        leases[lease.token] != nil
    }

    /// Deletes the leases that expired, and those of processes of this host that no longer run.
    /// Their claims are then free for any live lease.
    mutating func reapLeases(now: Date) {
        leases = leases.filter { $0.value.expiresAt >= now && !$0.value.worker.hasEndedOnThisHost }
    }
}

/// One of the pipelines' tables.
struct MemoryTable {
    /// The records, by id.
    var records: [Int64: MemoryRecord] = [:]
    /// Record ids by key, for the key column's uniqueness.
    var keys: [String: Int64] = [:]
    /// The id the next inserted record gets: ids are never reused.
    var nextID: Int64 = 1

    /// The ids of the records, in id order.
    var ids: [Int64] { records.keys.sorted() }
}

/// One record: its key, its payload, and the generation of that payload.
struct MemoryRecord {
    var key: String?
    var payload: [UInt8]
    var generation: Int64
    /// The token of the lease that claimed it, if any; a claim whose lease is gone holds nothing.
    var claimedBy: String?
    /// The last run that committed it: a lease attached to that run does not claim it again.
    var committedRun: Int64?
}

/// Where one pipeline's derived values live: a companion table, or the pipeline's own table.
struct MemoryDestination {
    /// The table whose records these values belong to.
    let table: String
    /// Whether the values are columns of the record's own table: every record then has a row.
    let inline: Bool
    /// The declared columns with their defaults, as a column holds them.
    var defaults: [String: DerivedValue] = [:]
    /// The rows of derived values by record id, with the columns written; a column never written
    /// holds its default. For the inline layout, a record without an entry holds every default.
    var rows: [Int64: [String: DerivedValue]] = [:]

    /// The values `columns` hold for a record; nil when it has no row of derived values.
    func values(of recordID: Int64, _ columns: [OutputColumn], recordExists: Bool) -> [DerivedValue]? {
        let row = rows[recordID]
        guard row != nil || (inline && recordExists) else { return nil }
        return columns.map { column in
            row?[column.name] ?? defaults[column.name] ?? MemoryStorage.rules.stored(column.defaultValue, in: column.type)
        }
    }
}

/// A stamp's or failure's key: stamps are kept per pipeline, processor and record.
struct ProcessorRecord: Hashable {
    let pipeline: String
    let processor: String
    let recordID: Int64
}

/// Which logic version derived a processor's values of a record, from which payload.
struct MemoryStamp {
    /// The table of the record.
    var source: String
    var version: Int
    /// The payload generation the values were derived from.
    var generation: Int64
    var payloadDigest: Int64
    /// For a dependent: the digest of the input values it derived from.
    var inputsDigest: Int64?
    /// For a dependent: its inputs' names and versions.
    var inputVersions: String?
    /// False once the payload changed, the record was invalidated or the processor failed on it since.
    var current: Bool
    var runID: Int64?
    var derivedAt: Date
}

/// The last failure of a processor on a record.
struct MemoryFailure {
    var source: String
    var version: Int
    var generation: Int64
    var current: Bool
    var kind: FailureKind
    var message: String
    var runID: Int64?
    var failedAt: Date
}

/// One run, as history shows it.
struct MemoryRun {
    let id: Int64
    let startedAt: Date
    var endedAt: Date?
    var status: RunStatus
    let processors: [ProcessorVersion]
    /// What its commits added up to.
    var counts = RunCounts()
    /// Per pipeline, the records pending when the run started, for the workers that join it.
    var pending: [String: Int] = [:]
    /// When `cancel` asked it to end.
    var cancelRequestedAt: Date?
}

/// A lease: one process's right to claim and commit.
struct MemoryLease {
    let worker: WorkerIdentity
    let duration: Duration
    let acquiredAt: Date
    var renewedAt: Date
    var expiresAt: Date
    /// The run the lease's process derives now.
    var runID: Int64?
    /// Records committed under the lease.
    var done = 0
    /// What holds the lease's workers, as they reported it, and since when.
    var hold: (hold: ClaimHold, since: Date)?
}

/// What a run replaced of one processor's values of one record.
struct ReplacedKey: Hashable {
    let runID: Int64
    let pipeline: String
    let processor: String
    let recordID: Int64
}

/// The values and stamp a run replaced, and the generation it derived from.
struct MemoryReplaced {
    let source: String
    /// The generation the run's last write of the values derived from.
    var derivedGeneration: Int64
    /// The stamp before the run; nil when there was none.
    let stamp: MemoryStamp?
    /// The processor's values before the run, by column.
    let values: [String: DerivedValue]
}

/// Whose projection: a pipeline's, of one record.
struct ProjectionKey: Hashable {
    let pipeline: String
    let recordID: Int64
}

/// A stored projection, as the SQLite store keeps one: the payload generation and projection version
/// that wrote it, its checksum, and the digest of its payload.
struct MemoryProjection {
    let generation: Int64
    let version: Int
    let checksum: Int64
    let payloadDigest: Int64
    let bytes: [UInt8]

    /// Whether it serves a record of `generation` for projection version `version`, or why not.
    func fallback(generation current: Int64, version wanted: Int) -> ProjectionFallback? {
        if generation != current { return .payloadChanged }
        if version != wanted { return .versionChanged }
        if PayloadCodec.digest(bytes) != checksum { return .checksumMismatch }
        return nil
    }
}

/// Which lease's claims of which pipeline a cursor belongs to.
struct ClaimKey: Hashable {
    let token: String
    let pipeline: String
    /// Each lane of stale records has a cursor of its own.
    var lane: StaleLane = .all
}
