#if PostgreSQL
@testable import RederivePostgres
import Testing

/// How often a worker's claims reap leases and look for a gone lease's records: once per interval,
/// and at once when nothing was done yet or the last time was forgotten.
@Suite("what claims do once per interval")
struct ClaimCadenceTests {
    @Test func somethingIsDueFirstThenOncePerInterval() {
        let start = ContinuousClock.now
        var last: ContinuousClock.Instant?
        #expect(PostgresStore.isDue(since: &last, every: .milliseconds(500), at: start))
        #expect(last == start)
        #expect(!PostgresStore.isDue(since: &last, every: .milliseconds(500), at: start + .milliseconds(499)))
        #expect(last == start)
        #expect(PostgresStore.isDue(since: &last, every: .milliseconds(500), at: start + .milliseconds(500)))
        #expect(last == start + .milliseconds(500))
    }

    /// A claim that leaves a gone lease's records to take forgets when it looked: the next one looks.
    @Test func aForgottenTimeIsDueAtOnce() {
        let start = ContinuousClock.now
        var looks: [String: ContinuousClock.Instant] = [:]
        #expect(PostgresStore.isDue(since: &looks["a"], every: .seconds(1), at: start))
        #expect(!PostgresStore.isDue(since: &looks["a"], every: .seconds(1), at: start + .milliseconds(10)))
        #expect(PostgresStore.isDue(since: &looks["b"], every: .seconds(1), at: start + .milliseconds(10)))
        looks["a"] = nil
        #expect(PostgresStore.isDue(since: &looks["a"], every: .seconds(1), at: start + .milliseconds(20)))
    }
}
#endif
