import Foundation

/// An app's schema migration as a database knows it: applied, when and by which rederive, or pending.
public struct MigrationState: Sendable, Hashable {
    /// The migration's identifier.
    public let id: String
    /// When it was applied; nil while pending.
    public let appliedAt: Date?
    /// How long applying it took.
    public let duration: Duration?
    /// The rederive version that applied it.
    public let rederiveVersion: String?

    /// Whether the migration was applied.
    public var isApplied: Bool { appliedAt != nil }

    /// A migration's state as a store reads it.
    public init(id: String, appliedAt: Date?, duration: Duration?, rederiveVersion: String?) {
        self.id = id
        self.appliedAt = appliedAt
        self.duration = duration
        self.rederiveVersion = rederiveVersion
    }
}

/// What migrating a database did, or would do.
public struct MigrationOutcome: Sendable, Hashable {
    /// Migrations applied (or, in a dry run, that applied cleanly and were rolled back), in order.
    public let applied: [String]
    /// Whether everything was rolled back.
    public let dryRun: Bool

    /// The outcome of applying `applied`, for real or as a dry run.
    public init(applied: [String], dryRun: Bool) {
        self.applied = applied
        self.dryRun = dryRun
    }
}
