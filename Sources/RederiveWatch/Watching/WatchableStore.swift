import Rederive

/// What a ``Watcher`` needs of a store: a run's operations, the counts it reports as metrics, and
/// the signals that say when to look for stale records. `SQLiteStore`, `PostgresStore` and
/// `MemoryStore` are all three.
public typealias WatchableStore = RecordStore & StoreReporting & ChangeSignaling
