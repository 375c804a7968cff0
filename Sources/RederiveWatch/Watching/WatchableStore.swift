import Rederive

/// What a ``Watcher`` needs of a store: a run's operations and the counts it reports as metrics. It
/// must also signal changes (`RecordStore/changeSignaling`), which say when to look for stale records:
/// a store without them cannot be watched. `SQLiteStore`, `PostgresStore` and `MemoryStore` all signal.
public typealias WatchableStore = RecordStore & StoreReporting
