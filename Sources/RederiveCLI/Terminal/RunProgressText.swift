import Foundation
import Rederive

/// How `status` shows the runs that workers derive now on a shared store: done of total, the rate
/// lately, the time left, and each worker's share and last heartbeat, as text and as JSON.
enum RunProgressText {
    /// `run 12 in progress: 1,234 of 5,000 records (25 %), 310 records/s lately, about 12 s left`.
    static func headline(_ run: SharedRunProgress) -> String {
        var text = "run \(run.runID) in progress: \(Format.count(run.done))"
        if let total = run.total {
            let percent = total > 0 ? Int((Double(run.done) * 100 / Double(total)).rounded(.down)) : 100
            text += " of \(Format.count(total, "record")) (\(percent) %)"
        } else {
            text += " \(Format.noun(run.done, "record"))"
        }
        text += ", " + (run.recentRate.map { "\(Format.rate($0)) records/s lately" } ?? "no recent commits")
        if let left = run.estimatedRemaining {
            text += ", about \(Format.estimate(left.secondsValue)) left"
        }
        return text
    }

    /// One row per worker: host, pid, done, share of the run, records/s lately, last commit, last heartbeat.
    static func table(_ run: SharedRunProgress, now: Date) -> String {
        Format.table(
            ["host", "pid", "done", "share", "records/s", "last commit", "last heartbeat"],
            run.shares.map { share in
                [
                    share.worker?.host ?? "(gone)", share.worker.map { String($0.processID) } ?? "",
                    Format.count(share.done), "\(Int((fraction(share, of: run) * 100).rounded())) %",
                    share.recentRate.map(Format.rate) ?? "", ago(share.lastCommit, now: now), ago(share.lastHeartbeat, now: now),
                ]
            },
            numeric: [1, 2, 3, 4]
        )
    }

    /// The run as `status --format json` gives it.
    static func json(_ run: SharedRunProgress) -> [String: Any] {
        let dates = ISO8601DateFormatter()
        return [
            "id": run.runID, "startedAt": dates.string(from: run.startedAt), "total": run.total ?? NSNull(), "done": run.done,
            "derived": run.counts.changed, "unchanged": run.counts.unchanged, "failed": run.counts.failed,
            "skipped": run.counts.skipped, "recentRate": run.recentRate.map(rounded) ?? NSNull(),
            "etaSeconds": run.estimatedRemaining.map { rounded($0.secondsValue) } ?? NSNull(),
            "workers": run.shares.map { share in
                [
                    "host": share.worker?.host ?? NSNull(), "pid": share.worker.map { Int($0.processID) } ?? NSNull(),
                    "done": share.done, "share": (fraction(share, of: run) * 1000).rounded() / 1000,
                    "recentRate": share.recentRate.map(rounded) ?? NSNull(),
                    "lastCommit": share.lastCommit.map { dates.string(from: $0) } ?? NSNull(),
                    "lastHeartbeat": share.lastHeartbeat.map { dates.string(from: $0) } ?? NSNull(),
                ] as [String: Any]
            },
        ]
    }

    /// A share's part of what the run has done, 0 to 1.
    private static func fraction(_ share: SharedRunProgress.Share, of run: SharedRunProgress) -> Double {
        run.done > 0 ? Double(share.done) / Double(run.done) : 0
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }

    private static func ago(_ date: Date?, now: Date) -> String {
        date.map { "\(Format.seconds(max(0, now.timeIntervalSince($0)))) ago" } ?? ""
    }
}
