import Rederive
import RederiveMemory
import Testing

/// Batches sized toward a target duration: they settle where a commit takes the target, shrink within a
/// few commits when commits become slow, and grow back no faster than ×1.2 per commit.
@Suite("Batches sized toward a target duration")
struct BatchSizerTests {
    /// A database whose commits take `fixed` plus `perRecord` for each record.
    struct Commits {
        var fixed: Duration
        var perRecord: Duration

        func duration(of records: Int) -> Duration { fixed + perRecord * records }
    }

    static let target = Duration.milliseconds(50)
    /// 1 ms per commit and 0.1 ms per record: 490 records take the target.
    static let steady = Commits(fixed: .milliseconds(1), perRecord: .microseconds(100))
    static let steadySize = 490

    /// Commits `count` full batches on `commits`; the sizes they had.
    static func commit(_ count: Int, _ sizer: inout BatchSizer, on commits: Commits) -> [Int] {
        (0..<count).map { _ in
            let size = sizer.size
            sizer.observe(records: size, duration: commits.duration(of: size))
            return size
        }
    }

    @Test(arguments: [10, 500, 10_000])
    func settlesWhereACommitTakesTheTarget(initial: Int) {
        var sizer = BatchSizer(target: Self.target, bounds: 10...10_000, initial: initial)
        _ = Self.commit(60, &sizer, on: Self.steady)
        let settled = Self.commit(10, &sizer, on: Self.steady)
        for size in settled {
            #expect(abs(size - Self.steadySize) <= Self.steadySize / 20, "sizes \(settled)")
            let duration = Self.steady.duration(of: size)
            #expect(duration > Self.target * 0.9 && duration < Self.target * 1.1, "\(duration) for \(size) records")
        }
    }

    @Test func shrinksWithinAFewCommitsWhenCommitsBecomeTenTimesSlower() {
        var sizer = BatchSizer(target: Self.target, bounds: 10...10_000, initial: Self.steadySize)
        _ = Self.commit(30, &sizer, on: Self.steady)
        let slow = Commits(fixed: Self.steady.fixed * 10, perRecord: Self.steady.perRecord * 10)
        let sizes = Self.commit(6, &sizer, on: slow)
        // Each commit at most halves the next: four commits take the batch from 490 to the 49 that fit.
        #expect(sizes[1] <= Self.steadySize / 2 + 1, "sizes \(sizes)")
        #expect(sizes[4] <= 60, "sizes \(sizes)")
        #expect(slow.duration(of: sizes[5]) < Self.target * 1.25, "sizes \(sizes)")
    }

    @Test func aCommitThatWaitsForAnotherWritersLockShrinksTheBatchToTheFewestRecords() {
        var sizer = BatchSizer(target: Self.target, bounds: 10...10_000, initial: Self.steadySize)
        _ = Self.commit(30, &sizer, on: Self.steady)
        // Another connection holds the write lock: every commit waits 200 ms, whatever its size.
        let locked = Commits(fixed: .milliseconds(200), perRecord: Self.steady.perRecord)
        let sizes = Self.commit(8, &sizer, on: locked)
        #expect(zip(sizes, sizes.dropFirst()).allSatisfy { $1 <= $0 }, "sizes \(sizes)")
        #expect(sizes.last == 10, "sizes \(sizes)")
    }

    @Test func growsBackByAtMostOneFifthPerCommit() {
        var sizer = BatchSizer(target: Self.target, bounds: 10...10_000, initial: Self.steadySize)
        _ = Self.commit(30, &sizer, on: Self.steady)
        _ = Self.commit(10, &sizer, on: Commits(fixed: .milliseconds(200), perRecord: Self.steady.perRecord))
        #expect(sizer.size == 10)
        let sizes = Self.commit(80, &sizer, on: Self.steady)
        for (size, next) in zip(sizes, sizes.dropFirst()) {
            #expect(next <= max(size + 1, Int(Double(size) * BatchSizer.growth)), "sizes \(sizes)")
        }
        // From 10 to 490 at ×1.2 per commit takes 22 commits, once the average has forgotten the slow
        // commits, which it does at 15 % per commit.
        #expect(sizes[..<22].allSatisfy { $0 < Self.steadySize }, "sizes \(sizes)")
        #expect(abs(sizes.last! - Self.steadySize) <= Self.steadySize / 20, "sizes \(sizes)")
    }

    @Test func staysWithinItsBounds() {
        var fast = BatchSizer(target: Self.target, bounds: 10...2_000, initial: 500)
        _ = Self.commit(100, &fast, on: Commits(fixed: .zero, perRecord: .zero))
        #expect(fast.size == 2_000)
        var slow = BatchSizer(target: Self.target, bounds: 10...2_000, initial: 500)
        _ = Self.commit(100, &slow, on: Commits(fixed: .seconds(5), perRecord: .milliseconds(10)))
        #expect(slow.size == 10)
        #expect(BatchSizer(target: Self.target, bounds: 10...2_000, initial: 1).size == 10)
        #expect(BatchSizer(target: Self.target, bounds: 10...2_000, initial: 50_000).size == 2_000)
    }

    @Test func aSmallBatchWithRoomForMoreGrowsByOneRecord() {
        var sizer = BatchSizer(target: Self.target, bounds: 1...100, initial: 1)
        let sizes = Self.commit(4, &sizer, on: Commits(fixed: .zero, perRecord: .milliseconds(1)))
        #expect(sizes == [1, 2, 3, 4])
    }

    @Test func aFixedSizeNeverChanges() {
        var sizer = BatchSizer(fixed: 64)
        _ = Self.commit(5, &sizer, on: Commits(fixed: .seconds(1), perRecord: .zero))
        _ = Self.commit(5, &sizer, on: Commits(fixed: .zero, perRecord: .zero))
        #expect(sizer.size == 64)
        #expect(!sizer.isAdaptive)
    }

    @Test func aRunSizesItsBatchesFromItsConfigurationOrTheStoresDefault() {
        let store = MemoryStore()
        var configuration = Runner.Configuration()
        #expect(PipelinePass.batchSizer(configuration, store: store).target == store.preferredBatchDuration)
        #expect(PipelinePass.batchSizer(configuration, store: store).size == 500)
        configuration.targetBatchDuration = .seconds(2)
        #expect(PipelinePass.batchSizer(configuration, store: store).target == .seconds(2))
        // The maximum rate's second bounds every batch; a fixed size overrides the target.
        configuration.maximumRate = 40
        #expect(PipelinePass.batchSizer(configuration, store: store).bounds == 10...40)
        configuration.batchSize = 100
        #expect(PipelinePass.batchSizer(configuration, store: store) == BatchSizer(fixed: 40))
        #expect(PipelinePass.claimSize(configuration, store: store) == 32)
    }
}
