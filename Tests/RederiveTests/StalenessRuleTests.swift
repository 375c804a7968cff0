import Rederive
import RederiveTestSupport
import Testing

/// The staleness rule alone, without a store. The pipeline is ``TestPipeline``'s at version 2 of
/// `total` (index 0) and version 1 of `stats` (index 1).
@Suite struct StalenessRuleTests {
    let pipeline = TestPipeline(totalVersion: 2).pipeline

    func plan(_ lane: StaleLane = .all, retryFailed: Bool = false, recordIDs: ClosedRange<Int64> = .everyID) -> RunPlan {
        RunPlan(pipeline: pipeline, retryFailed: retryFailed, lane: lane, recordIDs: recordIDs)
    }

    /// Every combination of a current stamp and a current failure: none, of an older version, of the
    /// processor's version, of a newer one.
    static let states: [ProcessorRecordState] = {
        let versions: [Int?] = [nil, 1, 2, 3]
        return versions.flatMap { stamp in versions.map { ProcessorRecordState(currentStampVersion: stamp, currentFailureVersion: $0) } }
    }()

    @Test func aCurrentStampOfTheProcessorsVersionIsUpToDateWhateverElse() {
        for lane in StaleLane.allCases {
            for retry in [false, true] {
                for failure: Int? in [nil, 1, 2] {
                    let state = ProcessorRecordState(currentStampVersion: 2, currentFailureVersion: failure)
                    #expect(!plan(lane, retryFailed: retry).isStale(0, state), "\(lane) retry \(retry) failure \(String(describing: failure))")
                }
            }
        }
    }

    @Test func aMissingOrOtherVersionsStampIsStaleUnlessItFailedAtThisVersion() {
        #expect(plan().isStale(0, ProcessorRecordState()))
        #expect(plan().isStale(0, ProcessorRecordState(currentStampVersion: 1)))
        #expect(plan().isStale(0, ProcessorRecordState(currentStampVersion: 3)), "a stamp of a newer version is not this version's")
        #expect(plan().isStale(0, ProcessorRecordState(currentStampVersion: 1, currentFailureVersion: 1)), "a failure of an older version says nothing now")
        #expect(!plan().isStale(0, ProcessorRecordState(currentStampVersion: 1, currentFailureVersion: 2)))
        #expect(!plan().isStale(0, ProcessorRecordState(currentFailureVersion: 2)))
    }

    @Test func aRunThatRetriesFailuresTakesRecordsThatFailedAtThisVersion() {
        #expect(plan(retryFailed: true).isStale(0, ProcessorRecordState(currentFailureVersion: 2)))
        #expect(plan(retryFailed: true).isStale(0, ProcessorRecordState(currentStampVersion: 1, currentFailureVersion: 2)))
    }

    @Test func theFreshLaneHasNoCurrentStampAndTheBacklogOneOfAnotherVersion() {
        #expect(plan(.fresh).isStale(0, ProcessorRecordState()))
        #expect(!plan(.fresh).isStale(0, ProcessorRecordState(currentStampVersion: 1)))
        #expect(!plan(.backlog).isStale(0, ProcessorRecordState()))
        #expect(plan(.backlog).isStale(0, ProcessorRecordState(currentStampVersion: 1)))
        #expect(!plan(.fresh).isStale(0, ProcessorRecordState(currentFailureVersion: 2)), "a failure at this version keeps a fresh record out")
    }

    @Test(arguments: [false, true])
    func theTwoLanesSplitTheStaleRecordsBetweenThem(retryFailed: Bool) {
        for state in Self.states {
            let all = plan(retryFailed: retryFailed).isStale(0, state)
            let fresh = plan(.fresh, retryFailed: retryFailed).isStale(0, state)
            let backlog = plan(.backlog, retryFailed: retryFailed).isStale(0, state)
            #expect(all == (fresh || backlog) && !(fresh && backlog), "\(state)")
        }
    }

    @Test func theStaleProcessorsAreTheSelectedOnesInIndexOrderWithinThePlansIDs() {
        let states = [0: ProcessorRecordState(currentStampVersion: 1), 1: ProcessorRecordState()]
        #expect(plan().staleProcessors(of: 7) { states[$0]! } == [0, 1])
        #expect(plan(recordIDs: 1...6).staleProcessors(of: 7) { states[$0]! } == [])
        let upToDate = [0: ProcessorRecordState(currentStampVersion: 2), 1: ProcessorRecordState()]
        #expect(plan().staleProcessors(of: 7) { upToDate[$0]! } == [1])
        let onlyStats = RunPlan(pipeline: pipeline, selection: [1])
        #expect(onlyStats.staleProcessors(of: 7) { states[$0]! } == [1])
    }
}
