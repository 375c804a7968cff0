import RederiveStoreTesting
import Testing

/// Every store of rederive passes every check of the conformance suite (`RederiveStoreTesting`), each
/// check on each store a test case of its own, on a fresh store.
@Suite("Store conformance", .timeLimit(.minutes(5)))
struct StoreConformanceTests {
    @Test(arguments: StoreUnderTest.all, StoreConformance.checks)
    func conformance(store: StoreUnderTest, check: StoreCheck) async throws {
        try await check.run(making: store.make)
    }

    /// A store that offers every capability runs every check.
    @Test func everyStoreOffersEveryCapabilityTheChecksNeed() {
        #expect(StoreConformance.checks(offering: Set(StoreCapability.allCases)).count == StoreConformance.checks.count)
        #expect(StoreConformance.checks(offering: []).count < StoreConformance.checks.count)
    }
}
