import ArgumentParser
import Foundation
import Rederive

/// `rederive status`: how current each processor's values are.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show, for each processor, what it derives from and how many records are up to date, stale and failed.",
        discussion: "Each record is in one state per processor, so the counts add up to the records. "
            + RecordState.allCases.map { "\($0.name): \($0.definition)." }.joined(separator: " ")
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: OutputFormat.help)
    var format: OutputFormat = .table

    func run() async throws {
        let console = verbosity.console(database.environment.console, keepingOutput: format != .table)
        let store = try await database.openForReading()
        var statuses: [ProcessorStatus] = []
        var sources: [[String]] = []
        var records = 0
        for pipeline in try database.pipelines() {
            let status = try await store.status(of: pipeline)
            records += status.first?.records ?? 0
            statuses += status
            sources += status.map { Self.sources(of: $0.name, in: pipeline) }
        }
        let workers = try await store.liveWorkers()
        // On a store many workers share: how far each run in progress has got, and each worker's share.
        let runs = try await store.sharedRuns?.runsInProgress() ?? []
        let control = try await ControlReport.read(store)
        let projections = try await Self.projections(in: store, database.pipelines())
        let now = Date()
        switch format {
        case .json:
            try console.json([
                "records": records,
                "processors": zip(statuses, sources).map { status, sources in
                    [
                        "pipeline": status.pipeline, "name": status.name, "version": status.version, "derivesFrom": sources,
                        "upToDate": status.upToDate, "stale": status.stale, "failed": status.failed,
                    ] as [String: Any]
                },
                "workers": workers.map { worker in
                    [
                        "host": worker.worker.host, "pid": Int(worker.worker.processID), "claimed": worker.claimed,
                        "done": worker.done, "lastHeartbeat": ISO8601DateFormatter().string(from: worker.lastHeartbeat),
                    ] as [String: Any]
                },
                "projections": projections.map { ["pipeline": $0.pipeline, "version": $0.version, "current": $0.current] as [String: Any] },
                "runs": runs.map(RunProgressText.json),
                "control": control.json,
            ] as [String: Any])
        case .csv:
            console.csv(
                ["pipeline", "processor", "version", "derivesFrom", "records", "upToDate", "stale", "failed"],
                zip(statuses, sources).map { status, sources in
                    [status.pipeline, status.name, String(status.version), sources.joined(separator: ";"), String(status.records)]
                        + RecordState.allCases.map { String(status.count($0)) }
                }
            )
        case .table:
            // Each processor's row counts records: the failed column summed counts record × processor failures.
            console.line("\(database.databaseName): \(Format.count(records, "record")); each processor's counts below are of records")
            console.line(Format.table(
                ["pipeline", "processor", "version", "derives from"] + RecordState.allCases.map(\.name),
                zip(statuses, sources).map { status, sources in
                    [status.pipeline, status.name, String(status.version), sources.joined(separator: ", ")]
                        + RecordState.allCases.map { Format.count(status.count($0)) }
                },
                numeric: [2, 4, 5, 6]
            ))
            for projection in projections {
                console.line(
                    "\(projection.pipeline): \(Format.count(projection.current, "record")) \(projection.current == 1 ? "has" : "have") "
                        + "a current projection (version \(projection.version))"
                )
            }
            for run in runs {
                console.line(RunProgressText.headline(run))
                console.line(RunProgressText.table(run, now: now))
            }
            for line in control.lines(now: now) {
                console.line(line)
            }
            if !workers.isEmpty {
                console.line("\(Format.count(workers.count, "worker")) deriving now:")
                console.line(Format.table(
                    ["host", "pid", "claimed", "done", "last heartbeat"],
                    workers.map {
                        [$0.worker.host, String($0.worker.processID), Format.count($0.claimed), Format.count($0.done),
                         "\(Format.seconds(max(0, now.timeIntervalSince($0.lastHeartbeat)))) ago"]
                    },
                    numeric: [1, 2, 3]
                ))
            }
        }
    }

    /// Per pipeline that declares a projection: its version, and how many records have a current one.
    static func projections(in store: any CommandStore, _ pipelines: [Pipeline]) async throws -> [(pipeline: String, version: Int, current: Int)] {
        guard let store = store.projectionStore else { return [] }
        var counts: [(pipeline: String, version: Int, current: Int)] = []
        for pipeline in pipelines {
            guard let version = pipeline.projectionVersion else { continue }
            counts.append((pipeline.name, version, try await store.currentProjectionCount(pipeline)))
        }
        return counts
    }

    /// What a processor derives from: `payload`, its input processors, or both.
    static func sources(of processor: String, in pipeline: Pipeline) -> [String] {
        guard let descriptor = pipeline.processor(named: processor) else { return [] }
        return (descriptor.readsPayload ? ["payload"] : []) + descriptor.inputProcessors
    }
}
