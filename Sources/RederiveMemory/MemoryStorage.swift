import Rederive

/// How the in-memory store holds derived values: as SQLite's columns hold them, so that an app's
/// tests on it see the values its SQLite database would keep.
public enum MemoryStorage {
    /// A NaN is held as null, an integer in a real column as a real, and −0.0 in a real column as 0.0.
    public static let rules = StorageRules(nanIsNull: true, realColumnsHoldIntegersAsReals: true, realZeroHasNoSign: true)
}

extension MemoryStore {
    /// How this store holds the values it is given: ``MemoryStorage/rules``.
    public var storageRules: StorageRules { MemoryStorage.rules }
}

