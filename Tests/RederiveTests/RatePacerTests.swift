import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// `--max-rate` is a ceiling at every moment: after a pause of any length, the next second admits at
/// most the rate plus one burst, never a catch-up on the time lost.
@Suite("Pacing to a maximum rate", .timeLimit(.minutes(2)))
struct RatePacerTests {
    /// The records a pacer admits within the second after `start`, when takes of `claim` records follow
    /// each other as soon as the pacer lets them.
    static func admittedInOneSecond(_ pacer: inout RatePacer, from start: ContinuousClock.Instant, claim: Int) -> Int {
        var now = start
        var admitted = 0
        // Bounded: a pacer that never makes a take wait would otherwise admit for ever.
        for _ in 0..<10_000 {
            now += pacer.take(claim, at: now)
            guard now < start + .seconds(1) else { break }
            admitted += claim
        }
        return admitted
    }

    @Test(arguments: [1, 30, 3600])
    func afterAPauseTheNextSecondAdmitsTheRatePlusOneBurst(pauseSeconds: Int) {
        let start = ContinuousClock.now
        var pacer = RatePacer(rate: 8, burst: 8, now: start)
        #expect(Self.admittedInOneSecond(&pacer, from: start, claim: 4) <= 16)
        let resumed = start + .seconds(1 + pauseSeconds)
        let admitted = Self.admittedInOneSecond(&pacer, from: resumed, claim: 4)
        #expect(admitted >= 8 && admitted <= 8 + 8, "\(admitted) records in the second after the pause")
    }

    @Test func takesFollowingEachOtherKeepToTheRate() {
        let start = ContinuousClock.now
        var pacer = RatePacer(rate: 10, burst: 5, now: start)
        #expect(pacer.take(5, at: start) == .zero)
        #expect(pacer.take(5, at: start) == .milliseconds(500))
        // The second take is paid for at +0.5 s: a third one then waits another half second.
        #expect(pacer.take(5, at: start + .milliseconds(500)) == .milliseconds(500))
    }

    @Test func recordsGivenBackAreTakenAgainAtOnce() {
        let start = ContinuousClock.now
        var pacer = RatePacer(rate: 10, burst: 5, now: start)
        #expect(pacer.take(5, at: start) == .zero)
        pacer.giveBack(5)
        #expect(pacer.take(5, at: start) == .zero)
        // Never more than one burst, however much is given back.
        pacer.giveBack(50)
        #expect(pacer.take(10, at: start) == .milliseconds(500))
    }

    /// A run whose third claim is held up for 2 s, as by a database that was out of reach, goes on at
    /// its rate: in the second after the claim came back, its workers claim at most the rate plus one
    /// claim more.
    @Test func aRunHeldUpByAnOutageDoesNotCatchUp() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(80), into: path)
            let claims = Mutex<[(started: ContinuousClock.Instant, records: Int)]>([])
            let resumed = Mutex<ContinuousClock.Instant?>(nil)
            var store = InterceptingStore(base: try SQLiteStore(path: path))
            store.beforeClaim = {
                let count = claims.withLock { $0.count }
                claims.withLock { $0.append((ContinuousClock.now, 0)) }
                if count == 2 {
                    try await Task.sleep(for: .seconds(2))
                    resumed.withLock { $0 = ContinuousClock.now }
                }
            }
            store.afterClaim = { batch in
                // One worker claims at a time: this batch is the last claim's.
                claims.withLock { $0[$0.count - 1].records = batch.count }
            }
            var configuration = Runner.Configuration(parallelism: 2, batchSize: 5, maximumRate: 20)
            configuration.claimSize = 5
            let summary = try await Runner(store: store, pipelines: [test.pipeline], configuration: configuration).run()
            #expect(summary.status == .completed && summary.counts.changed == 80, "\(summary.counts)")
            let back = try #require(resumed.withLock { $0 })
            let afterwards = claims.withLock { claims in
                claims.filter { $0.started > back && $0.started < back + .seconds(1) }.map(\.records).reduce(0, +)
            }
            #expect(afterwards <= 20 + 5, "\(afterwards) records claimed in the second after the outage")
        }
    }
}
