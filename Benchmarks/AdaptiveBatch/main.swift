// rederive-adaptive-batch: batches sized toward a target duration (issue 27), on SQLite; run by
// Benchmarks/adaptive_batch.sh. Not part of the product.
//
// A pipeline whose derivation costs next to nothing, so that commits, not derivation, bound the run:
//
// 1. One run in three phases of BENCH_PHASE seconds: the database to itself (the size converges),
//    another connection holding the write lock 300 ms at a time with 50 ms gaps (commits wait for
//    it: the size shrinks), then the database to itself again (the size grows back). Every commit's
//    records, duration and next size come from the run's debug log.
// 2. Side by side, alternating, BENCH_ROUNDS rounds: how long another program's short writes (one
//    every 20 ms) wait for the write lock while a run commits fixed batches of 2,000 records, and
//    while it sizes them toward the target.
//
// Environment: BENCH_RECORDS (300000), BENCH_PHASE (8), BENCH_TARGET (0.05 s), BENCH_ROUNDS (3),
// BENCH_DIR (a temporary directory).
import Foundation
import GRDB
import Logging
import Rederive
import RederiveCodec
import RederiveSQLite
import Synchronization

let environment = ProcessInfo.processInfo.environment
let recordCount = Int(environment["BENCH_RECORDS"] ?? "") ?? 300_000
let phase = Double(environment["BENCH_PHASE"] ?? "") ?? 8
let target = Double(environment["BENCH_TARGET"] ?? "") ?? 0.05
let rounds = Int(environment["BENCH_ROUNDS"] ?? "") ?? 3
let directory = environment["BENCH_DIR"] ?? NSTemporaryDirectory()

struct Sample: Decodable, Sendable {
    let values: [Double]
    let label: String
}

let pipeline = Pipeline(name: "items", table: "items", keyColumn: "key", decoding: Sample.self, processors: [
    Processor<Sample>(name: "total", version: 1, columns: [.real("total")]) { [.real($0.values.reduce(0, +))] },
    Processor<Sample>(name: "label", version: 1, columns: [.text("label_upper")]) { [.text($0.label.uppercased())] },
])

/// A fresh database of `recordCount` small records, none derived.
func makeDatabase(_ name: String) async throws -> String {
    let path = (directory as NSString).appendingPathComponent(name)
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    try await SQLiteStore(path: path).prepare(pipeline)
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
        let insert = try db.makeStatement(sql: "INSERT INTO items (key, payload) VALUES (?, ?)")
        for index in 0..<recordCount {
            let json = #"{"label":"s\#(index)","values":[\#(index),1,2]}"#
            try insert.execute(arguments: [String(index), Data(PayloadCodec.encode(Array(json.utf8)))])
        }
    }
    return path
}

/// A commit as the run's debug log tells it.
struct Commit: Sendable {
    let at: Double
    let records: Int
    let milliseconds: Double
    let nextBatch: Int
}

/// The commits a run logged, in order.
final class Commits: Sendable {
    private let list = Mutex<[Commit]>([])

    func append(_ commit: Commit) { list.withLock { $0.append(commit) } }
    var all: [Commit] { list.withLock { $0 } }
    var count: Int { list.withLock { $0.count } }
    var records: Int { list.withLock { $0.reduce(0) { $0 + $1.records } } }
}

/// Keeps the run's `committed` log lines.
struct CommitLog: LogHandler {
    let commits: Commits
    let start: ContinuousClock.Instant
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.message.description == "committed", let fields = event.metadata else { return }
        func number(_ key: String) -> Double { Double(fields[key].map { "\($0)" } ?? "") ?? 0 }
        let commit = Commit(
            at: (ContinuousClock.now - start).secondsValue, records: Int(number("records")),
            milliseconds: number("milliseconds"), nextBatch: Int(number("nextBatch"))
        )
        commits.append(commit)
    }
}


/// A run of `path` with `configuration`, logging its commits, in a task the caller cancels.
final class LoggedRun: Sendable {
    let commits = Commits()
    let task: Task<RunSummary, any Error>

    init(path: String, configuration: Runner.Configuration) throws {
        let store = try SQLiteStore(path: path)
        let commits = self.commits
        let start = ContinuousClock.now
        let logger = Logger(label: "bench") { _ in CommitLog(commits: commits, start: start) }
        let runner = Runner(store: store, pipelines: [pipeline], configuration: configuration, logger: logger)
        task = Task { try await runner.run() }
    }

    func stop() async throws -> RunSummary {
        task.cancel()
        return try await task.value
    }
}

/// Another program's connection on a thread of its own: holds the write lock `hold` seconds at a time,
/// `gap` apart, or (`hold` zero) writes one row every `gap` seconds, timing how long it waits for the lock.
final class OtherProgram: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex(false)
    let waits = Mutex<[Double]>([])

    init(path: String, hold: Double, gap: Double) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(60)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { try $0.execute(sql: "CREATE TABLE IF NOT EXISTS app_log (id INTEGER PRIMARY KEY, at REAL)") }
        Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                let asked = Date()
                try? queue.inTransaction(.immediate) { db in
                    waits.withLock { $0.append(Date().timeIntervalSince(asked)) }
                    if hold > 0 {
                        Thread.sleep(forTimeInterval: hold)
                    } else {
                        try db.execute(sql: "INSERT INTO app_log (at) VALUES (?)", arguments: [asked.timeIntervalSince1970])
                    }
                    return .commit
                }
                Thread.sleep(forTimeInterval: gap)
            }
            finished.withLock { $0 = true }
        }.start()
    }

    func stop() async {
        stopping.store(true, ordering: .relaxed)
        while !finished.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
    }
}

func percentile(_ values: [Double], _ share: Double) -> Double {
    let ordered = values.sorted()
    return ordered.isEmpty ? 0 : ordered[min(ordered.count - 1, Int(Double(ordered.count) * share))]
}
func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

func describe(_ name: String, _ commits: [Commit]) {
    guard !commits.isEmpty else { return print("  \(name): no commits") }
    let last = commits.suffix(8)
    print(String(
        format: "  %@: %d commits, median %.0f records and %.1f ms per commit (max %.0f ms), next batch %d..%d; last sizes %@, ms %@",
        name, commits.count, median(commits.map { Double($0.records) }), median(commits.map(\.milliseconds)),
        commits.map(\.milliseconds).max() ?? 0, commits.map(\.nextBatch).min() ?? 0, commits.map(\.nextBatch).max() ?? 0,
        last.map { String($0.nextBatch) }.joined(separator: " "), last.map { String(format: "%.0f", $0.milliseconds) }.joined(separator: " ")
    ))
}

func phases() async throws {
    let path = try await makeDatabase("adaptive-phases.sqlite")
    var configuration = Runner.Configuration(parallelism: 2)
    configuration.targetBatchDuration = .milliseconds(Int64(target * 1000))
    let run = try LoggedRun(path: path, configuration: configuration)
    try await Task.sleep(for: .seconds(phase))
    let began = run.commits.count
    let holder = try OtherProgram(path: path, hold: 0.3, gap: 0.05)
    try await Task.sleep(for: .seconds(phase))
    await holder.stop()
    let ended = run.commits.count
    try await Task.sleep(for: .seconds(phase))
    let summary = try await run.stop()
    let commits = run.commits.all
    print("target \(Int(target * 1000)) ms per commit; another connection holds the write lock 300 ms at a time, 50 ms apart, "
        + "from \(Int(phase)) s to \(Int(2 * phase)) s; \(summary.counts.total) records in \(Int(summary.elapsed.secondsValue)) s")
    let alone = Array(commits[..<began]), locked = Array(commits[began..<ended]), after = Array(commits[ended...])
    describe("alone", alone)
    describe("with the other writer", locked)
    describe("alone again", after)
    if let settled = alone.last?.nextBatch {
        let half = locked.firstIndex { $0.nextBatch <= settled / 2 }.map { $0 + 1 }
        let floor = locked.firstIndex { $0.nextBatch <= 10 }.map { $0 + 1 }
        print("  settled at \(settled) records; once the other writer began, half of that after \(half.map(String.init) ?? "-") commits, "
            + "the floor of 10 after \(floor.map(String.init) ?? "-")")
        let back = after.firstIndex { $0.nextBatch >= settled * 9 / 10 }.map { $0 + 1 }
        let growth = zip(after, after.dropFirst()).map { Double($1.nextBatch) / Double($0.nextBatch) }.max() ?? 0
        print(String(format: "  from %d records, back to 90 %% of the settled size after %@ commits; largest growth between commits x%.2f",
                     locked.last?.nextBatch ?? 0, back.map(String.init) ?? "-", growth))
    }
}

func appWaits() async throws {
    let fixed = "fixed 2000", sized = "target \(Int(target * 1000)) ms"
    var waits: [String: [Double]] = [:], rates: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for (name, batchSize) in [(fixed, 2000 as Int?), (sized, nil)] {
            let path = try await makeDatabase("adaptive-app.sqlite")
            var configuration = Runner.Configuration(parallelism: 2, batchSize: batchSize)
            configuration.targetBatchDuration = batchSize == nil ? .milliseconds(Int64(target * 1000)) : nil
            let run = try LoggedRun(path: path, configuration: configuration)
            try await Task.sleep(for: .seconds(2))
            let app = try OtherProgram(path: path, hold: 0, gap: 0.02)
            let before = run.commits.records
            try await Task.sleep(for: .seconds(phase))
            await app.stop()
            let after = run.commits.records
            _ = try await run.stop()
            waits[name, default: []] += app.waits.withLock { $0 }
            rates[name, default: []].append(Double(after - before) / phase)
        }
    }
    print("another program's writes, one every 20 ms for \(Int(phase)) s while the run commits; \(rounds) rounds, alternating:")
    var rows: [String: (p99: Double, worst: Double, rate: Double)] = [:]
    for name in [fixed, sized] {
        let all = waits[name] ?? []
        let rate = (rates[name] ?? []).reduce(0, +) / Double(max(1, rounds))
        rows[name] = (percentile(all, 0.99) * 1000, (all.max() ?? 0) * 1000, rate)
        print(String(format: "  %@: the app waited p50 %.1f ms, p99 %.1f ms, max %.1f ms; the run committed %.0f records/s",
                     name, median(all) * 1000, percentile(all, 0.99) * 1000, (all.max() ?? 0) * 1000, rate))
    }
    if let a = rows[fixed], let b = rows[sized] {
        print(String(format: "  fixed / sized: the app's p99 wait x%.1f, its longest wait x%.1f; the run's records/s x%.2f",
                     a.p99 / max(b.p99, 0.001), a.worst / max(b.worst, 0.001), a.rate / max(b.rate, 0.001)))
    }
}

try await phases()
try await appWaits()
