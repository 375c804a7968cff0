import Rederive
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

    /// A check that finds a store doing otherwise throws what differed, named after the check and the
    /// place in the suite that expects it: here an import that counts a payload stored already as replaced.
    @Test func aCheckThatFindsADifferenceThrowsItWithTheChecksName() async throws {
        let check = try #require(StoreConformance.checks.first { $0.name == "aPayloadChangeMakesItsRecordStaleForEveryProcessor" })
        let failure = await #expect(throws: StoreCheckFailure.self) {
            try await check.run(making: {
                var fixture = try await StoreUnderTest.memory.make()
                let importPayloads = fixture.importPayloads
                fixture.importPayloads = { payloads, pipeline in
                    let counts = try await importPayloads(payloads, pipeline)
                    return ImportCounts(inserted: counts.inserted, replaced: counts.replaced + counts.unchanged)
                }
                return fixture
            })
        }
        #expect(failure?.check == "staleness: aPayloadChangeMakesItsRecordStaleForEveryProcessor")
        #expect(failure?.error == nil)
        #expect(failure?.differences.count == 1, "\(failure?.differences ?? [])")
        let difference = try #require(failure?.differences.first)
        #expect(difference.hasPrefix("StalenessChecks.swift:"), "\(difference)")
        #expect(
            difference.hasSuffix("expected ImportCounts(inserted: 0, replaced: 0, unchanged: 1), got ImportCounts(inserted: 0, replaced: 1, unchanged: 0)"),
            "\(difference)"
        )
    }

    /// A check that the store ends by throwing reports what it threw, with the check's name.
    @Test func aCheckTheStoreEndsByThrowingReportsWhatItThrew() async throws {
        let check = try #require(StoreConformance.checks.first { $0.name == "valuesAreHeldAsTheColumnsHoldThem" })
        let failure = await #expect(throws: StoreCheckFailure.self) {
            try await check.run(making: {
                var fixture = try await StoreUnderTest.memory.make()
                fixture.importPayloads = { _, _ in throw RederiveError(.invalidArgument, "no imports today") }
                return fixture
            })
        }
        #expect(failure?.check == "commits and unchanged values: valuesAreHeldAsTheColumnsHoldThem")
        #expect(failure?.differences == [])
        #expect((failure?.error as? RederiveError)?.message == "no imports today")
        #expect(failure?.description.contains("no imports today") == true)
    }
}
