import Foundation
import Rederive

/// What holds or ends the work on a database now, as `status` and `history` show it: the pauses in
/// force, and for each run in progress its state (running, pausing, paused, cancelling, throttled)
/// with its workers' holds.
struct ControlReport {
    let controls: RunControls
    let holds: [WorkerHold]
    /// The runs in progress, newest first.
    let running: [RunHistoryEntry]

    /// Reads the controls and holds of `store`, and its runs in progress among the newest `recent`.
    static func read(_ store: any CommandStore, recent: Int = 100) async throws -> ControlReport {
        ControlReport(
            controls: try await store.controls(),
            holds: try await store.workerHolds(),
            running: try await store.runs(limit: recent).filter { $0.status == .running }
        )
    }

    /// The state of `run` when it is in progress; nil once it ended.
    func state(of run: RunHistoryEntry) -> OperatingState? {
        OperatingState.of(run, controls: controls, holds: holds)
    }

    /// How `history` shows a run's status: the live state of one in progress.
    func status(of run: RunHistoryEntry) -> String {
        state(of: run)?.description ?? run.status.rawValue
    }

    /// Lines for `status`'s table output; none when nothing is paused and no run is in progress.
    func lines(now: Date = Date()) -> [String] {
        var lines = controls.pauses.map { pause in
            "paused: \(ControlScopeOptions.describe(pause.scope)), by \(pause.requestedBy) \(Format.seconds(max(0, now.timeIntervalSince(pause.requestedAt)))) ago"
        }
        for run in running {
            guard let state = state(of: run) else { continue }
            let workers = holds.filter { $0.runID == run.id }
            let held = workers.filter { $0.hold != nil }.count
            var line = "run \(run.id): \(state)"
            if !workers.isEmpty {
                line += " (\(Format.count(workers.count, "worker")), \(held) held)"
            }
            lines.append(line)
        }
        return lines
    }

    /// The same as JSON: `pauses` and `runs` (id, state, workers with their holds).
    var json: [String: Any] {
        [
            "pauses": controls.pauses.map { pause in
                [
                    "pipeline": pause.scope.pipeline, "processor": pause.scope.processor ?? NSNull(),
                    "requestedAt": isoTimestamp(pause.requestedAt), "requestedBy": pause.requestedBy,
                ] as [String: Any]
            },
            "runs": running.compactMap { run -> [String: Any]? in
                guard let state = state(of: run) else { return nil }
                return [
                    "id": run.id, "state": state.description,
                    "workers": holds.filter { $0.runID == run.id }.map { worker in
                        [
                            "host": worker.worker.host, "pid": Int(worker.worker.processID),
                            "hold": worker.hold?.description ?? NSNull(), "since": worker.since.map(isoTimestamp) ?? NSNull(),
                        ] as [String: Any]
                    },
                ] as [String: Any]
            },
        ]
    }
}
