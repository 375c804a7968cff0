/// The behaviour every store has, as checks that a store's own tests run against it, each on a fresh
/// store: claims, leases and fencing; commits and unchanged values; staleness; failures and retry;
/// runs, history, rollback and reset; rollback's rules; pause, resume and cancel; projections;
/// verification inputs and stored values.
///
/// The checks are written once, against the store protocols, with a pipeline of their own
/// (``ConformancePipeline``), and every store of rederive passes them: SQLite, the in-memory store and
/// PostgreSQL. A store written elsewhere runs them from its tests, one test case a check:
///
/// ```swift
/// import RederiveStoreTesting
/// import Testing
///
/// @Test(arguments: StoreConformance.checks)
/// func conformance(check: StoreCheck) async throws {
///     try await check.run(making: { try await MyStore.conformanceFixture() })
/// }
/// ```
public enum StoreConformance {
    /// Every check, grouped by area, in a fixed order.
    public static let checks: [StoreCheck] =
        ClaimChecks.all + CommitChecks.all + StalenessChecks.all + FailureChecks.all + RunChecks.all
        + RollbackRuleChecks.all + RunControlChecks.all + ProjectionChecks.all + VerificationChecks.all

    /// The checks that apply to a store offering `capabilities`: every check of what all stores do,
    /// and those of the capabilities named.
    public static func checks(offering capabilities: Set<StoreCapability>) -> [StoreCheck] {
        checks.filter { check in check.capability.map(capabilities.contains) ?? true }
    }
}
