/// What deriving a record's dependents needs to know of its stored state, besides its payload: the
/// values of the columns they read, which of them are up to date and what they were derived from, and
/// which processors failed.
///
/// A store fills it for the records it hands out (``RunPlan/dependencyColumns`` says which values),
/// and it is empty for a pipeline without dependent processors.
public struct DependencyState: Sendable, Hashable {
    /// Dependents of the run that are not stale: derived again only when an input is derived in the
    /// same pass and the digest of their inputs' values changes.
    public var watching: [Int]
    /// The stored values of the processors that dependents read, by processor index, each in its
    /// columns' order; a record without a row of derived values has none.
    public var storedValues: [Int: [DerivedValue]]
    /// Per watching dependent with a current stamp: the ``InputDigest`` of the values it was derived from.
    public var consumedDigests: [Int: Int64]
    /// The kind of each current failure of the run's processors that the run does not retry, by processor index.
    public var failures: [Int: FailureKind]
    /// How the record's store holds values: inputs are digested as it holds them, so that the digest
    /// of values a commit would count unchanged is unchanged too.
    public var storageRules: StorageRules

    /// The state of one record, as a store that holds values by `storageRules` reads it.
    public init(
        watching: [Int] = [], storedValues: [Int: [DerivedValue]] = [:], consumedDigests: [Int: Int64] = [:],
        failures: [Int: FailureKind] = [:], storageRules: StorageRules
    ) {
        self.watching = watching
        self.storedValues = storedValues
        self.consumedDigests = consumedDigests
        self.failures = failures
        self.storageRules = storageRules
    }

    /// The state of a record whose dependents read nothing stored: derived from the payload alone,
    /// or of a pipeline without dependents. Inputs derived anew are digested as they are.
    public init() {
        self.init(storageRules: .exact)
    }
}
