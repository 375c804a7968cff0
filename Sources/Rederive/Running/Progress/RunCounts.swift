/// How many records a run, or one commit of it, handled and how.
///
/// Encoded, `changed` keeps its first name, `derived`, as the command line's JSON and a run's history
/// do: what scripts and stored counts read stays as it was.
public struct RunCounts: Sendable, Hashable, Codable {
    /// Records whose stored values changed.
    public var changed = 0
    /// Records whose derivation produced the values already stored: only their stamps were renewed.
    public var unchanged = 0
    /// Records for which at least one processor failed.
    public var failed = 0
    /// Records left stale because their payload changed or they were deleted while they were derived.
    public var skipped = 0

    /// Counts, zero unless given.
    public init(changed: Int = 0, unchanged: Int = 0, failed: Int = 0, skipped: Int = 0) {
        self.changed = changed
        self.unchanged = unchanged
        self.failed = failed
        self.skipped = skipped
    }

    /// Records whose stored values changed: ``changed``, by the name it had before.
    @available(*, deprecated, renamed: "changed")
    public var derived: Int {
        get { changed }
        set { changed = newValue }
    }

    private enum CodingKeys: String, CodingKey {
        case changed = "derived"
        case unchanged, failed, skipped
    }

    /// Every record handled.
    public var total: Int { changed + unchanged + failed + skipped }

    /// The counts of two runs or commits, added field by field.
    public static func + (lhs: RunCounts, rhs: RunCounts) -> RunCounts {
        RunCounts(
            changed: lhs.changed + rhs.changed,
            unchanged: lhs.unchanged + rhs.unchanged,
            failed: lhs.failed + rhs.failed,
            skipped: lhs.skipped + rhs.skipped
        )
    }

    /// Adds `rhs`'s counts to `lhs`'s.
    public static func += (lhs: inout RunCounts, rhs: RunCounts) {
        lhs = lhs + rhs
    }
}
