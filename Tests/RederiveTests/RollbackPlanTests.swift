@testable import Rederive
import RederiveTestSupport
import Testing

/// The rollback plan alone, without a store: which kept entries go back, why the others stay, and
/// what is written. The pipeline: `total` (REAL `total`), `stats` (INTEGER `value_count` default 0,
/// TEXT `label_upper`), and `size` (TEXT `size`), which reads `total`.
@Suite struct RollbackPlanTests {
    let run: Int64 = 7

    var pipeline: Pipeline {
        let total = Processor<Sample>.real("total", version: 1) { $0.values.reduce(0, +) }
        let stats = Processor<Sample>(name: "stats", version: 1, columns: [.integer("value_count", default: 0), .text("label_upper")]) { _ in
            [.integer(0), .null]
        }
        let size = Processor<Sample>.text("size", version: 1, from: total.real) { _ in nil }
        return Pipeline(name: "items", table: "items", keyColumn: "key", decoding: Sample.self, processors: [total, stats, size])
    }

    /// An entry the run kept, by default one that goes back: the record is there, at the generation
    /// the run derived from, stamped, and no later run changed it.
    func entry(
        _ id: Int64, _ processor: String, derivedAt generation: Int64 = 1, now current: Int64? = 1, hasStamp: Bool = true,
        laterChange: Int64? = nil, values: [String: DerivedValue] = [:], stamp: KeptStamp? = KeptStamp(current: true, generation: 1)
    ) -> StoredRollbackEntry {
        StoredRollbackEntry(
            recordID: id, key: "k\(id)", processor: processor, derivedGeneration: generation, currentGeneration: current,
            hasStamp: hasStamp, newestLaterChange: laterChange, values: values, stamp: stamp
        )
    }

    func reasons(_ plan: RollbackPlan) -> [String] {
        plan.report.skipped.map { "\($0.recordID) \($0.processor): \($0.reason ?? "")" }
    }

    @Test func anEntryMeetingSeveralReasonsIsSkippedWithTheFirstInOneOrder() {
        let plan = RollbackPlan(run: run, pipeline: pipeline, kept: [
            entry(1, "gone", now: nil, hasStamp: false, laterChange: 9),
            entry(2, "gone", now: 2, hasStamp: false, laterChange: 9),
            entry(3, "gone", hasStamp: false, laterChange: 9),
            entry(4, "gone", hasStamp: false),
            entry(5, "gone"),
        ])
        #expect(plan.restored.isEmpty && plan.stale.isEmpty)
        #expect(reasons(plan) == [
            "1 gone: the record was deleted",
            "2 gone: its payload changed since run 7",
            "3 gone: run 9 changed it again; roll that run back first",
            "4 gone: its stamp was removed since run 7",
            "5 gone: the pipeline no longer has processor \"gone\"",
        ])
        #expect(RollbackSkip.stampRemoved.reason(run: 7, processor: "total") == "its stamp was removed since run 7")
    }

    @Test func aRunBeforeThisOneDoesNotCountAsALaterChange() {
        let plan = RollbackPlan(run: run, pipeline: pipeline, kept: [entry(1, "total", laterChange: 5)])
        #expect(plan.report.skipped.isEmpty && plan.restored.map(\.processor) == [0])
    }

    @Test func restoredValuesFollowTheColumnsDeclaredNowWithDefaultsForThoseNotKept() {
        let plan = RollbackPlan(run: run, pipeline: pipeline, kept: [
            entry(1, "stats", values: ["label_upper": .text("A"), "dropped_column": .integer(3)]),
            entry(2, "stats"),
        ])
        #expect(plan.restored.map(\.values) == [[.integer(0), .text("A")], [.integer(0), .null]])
        #expect(plan.report.restored.map(\.key) == ["k1", "k2"] && plan.report.skipped.isEmpty)
    }

    @Test func aRestoredStampIsCurrentOnlyIfItWasAndForThePayloadTheRecordHasNow() {
        let plan = RollbackPlan(run: run, pipeline: pipeline, kept: [
            entry(1, "stats", stamp: KeptStamp(current: true, generation: 1)),
            entry(2, "stats", stamp: KeptStamp(current: false, generation: 1)),
            entry(3, "stats", stamp: KeptStamp(current: true, generation: 0)),
            entry(4, "stats", stamp: nil),
        ])
        #expect(plan.restored.map(\.stamp) == [.kept(current: true), .kept(current: false), .kept(current: false), .removed])
    }

    @Test func aRecordStoredTwiceCountsAsUnchangedWhenTheRunsLastWriteWasOfThePayloadItHasNow() {
        // `stats` changed at the first write (generation 1) only, `total` again at the second (2).
        let now2 = RollbackPlan(run: run, pipeline: pipeline, kept: [
            entry(1, "stats", derivedAt: 1, now: 2), entry(1, "total", derivedAt: 2, now: 2),
        ])
        #expect(now2.report.skipped.isEmpty && now2.restored.map(\.processor) == [1, 0])
        #expect(now2.restored.map(\.stamp) == [.kept(current: false), .kept(current: false)], "derived from generation 1, not 2")
        let now3 = RollbackPlan(run: run, pipeline: pipeline, kept: [
            entry(1, "stats", derivedAt: 1, now: 3), entry(1, "total", derivedAt: 2, now: 3),
        ])
        #expect(now3.restored.isEmpty && now3.report.skipped.count == 2)
    }

    @Test func dependentsOfARestoredProcessorGoStaleOnceUnlessRestoredToo() {
        let plan = RollbackPlan(run: run, pipeline: pipeline, kept: [
            entry(2, "total"), entry(1, "total"), entry(1, "size"), entry(3, "total"), entry(3, "size", laterChange: 9),
        ])
        #expect(plan.report.restored.map { "\($0.recordID) \($0.processor)" } == ["1 size", "1 total", "2 total", "3 total"])
        #expect(plan.stale == [StaleEntry(recordID: 2, processor: 2), StaleEntry(recordID: 3, processor: 2)])
    }
}
