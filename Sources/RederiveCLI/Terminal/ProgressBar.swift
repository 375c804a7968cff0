import Foundation
import Rederive
import Synchronization

/// A live bar on standard error: done/total, rate, time left and failures so far, on one line that
/// fits the terminal's width (``ProgressLine``), read again at every redraw.
final class ProgressBar: ProgressReporter {
    private let console: Console
    private let width: TerminalWidth
    private let lastDrawn = Mutex<ContinuousClock.Instant?>(nil)
    /// The length of the line last drawn and the width it was drawn for.
    private let drawn = Mutex<(length: Int, width: Int)>((0, 0))

    /// A bar on `console`, as wide as the console says at each redraw.
    init(console: Console) {
        self.console = console
        width = TerminalWidth(read: console.columns)
    }

    func report(_ event: ProgressEvent) {
        switch event {
        case .waiting(let holder):
            console.errorLine(Format.waiting(for: holder))
        case .started(let runID, let total):
            // The run's header stays on its own line above the bar, which redraws only its own line.
            console.errorLine(PlainProgress.header(runID: runID, total: total))
            draw(ProgressLine(done: 0, total: total, rate: 0, failed: 0))
        case .advanced(let progress):
            let now = ContinuousClock.now
            let due = lastDrawn.withLock { last in
                guard last.map({ now - $0 >= .milliseconds(100) }) ?? true else { return false }
                last = now
                return true
            }
            if due || progress.done == progress.total || !progress.overdue.isEmpty {
                draw(ProgressLine(
                    done: progress.done, total: progress.total, rate: progress.rate, failed: progress.failed,
                    overdue: progress.overdue
                ))
            }
        case .held(let hold):
            // On a line of its own above the bar, which the next commit draws again.
            drawn.withLock { drawn in
                console.writeError("\r\u{1B}[2K")
                drawn = (0, drawn.width)
            }
            console.errorLine(Format.held(hold))
        case .finished:
            console.writeError("\n")
        }
    }

    /// Redraws the line in place. When the terminal narrowed since the last drawing, terminals that
    /// reflow (most do, tmux too) have wrapped the old line over several rows, with the cursor on the
    /// last: those rows are cleared too, so that no piece of the old line stays behind.
    private func draw(_ line: ProgressLine) {
        let columns = width.current
        let text = line.text(width: columns)
        drawn.withLock { drawn in
            var erase = "\r\u{1B}[2K"
            if columns < drawn.width, drawn.length > columns {
                let rows = (drawn.length + columns - 1) / columns
                erase += String(repeating: "\u{1B}[1A\u{1B}[2K", count: rows - 1)
            }
            drawn = (text.count, columns)
            console.writeError(erase + text)
        }
    }
}

/// A line every few seconds, for logs and pipes.
final class PlainProgress: ProgressReporter {
    private let console: Console
    private let interval: Duration
    private let lastWritten = Mutex<ContinuousClock.Instant>(.now)
    private let lastOverdue = Mutex<[Int64]>([])

    init(console: Console, interval: Duration = .seconds(5)) {
        self.console = console
        self.interval = interval
    }

    func report(_ event: ProgressEvent) {
        switch event {
        case .waiting(let holder):
            console.errorLine(Format.waiting(for: holder))
        case .started(let runID, let total):
            console.errorLine(Self.header(runID: runID, total: total))
        case .held(let hold):
            console.errorLine(Format.held(hold))
        case .advanced(let progress):
            // A record that hangs is news at once, not at the next interval.
            let overdue = progress.overdue.map(\.recordID)
            let changed = lastOverdue.withLock { last in
                defer { last = overdue }
                return last != overdue
            }
            if changed && !overdue.isEmpty {
                console.errorLine("run \(progress.runID): overdue: \(Format.overdue(progress.overdue))")
            }
            let now = ContinuousClock.now
            let due = lastWritten.withLock { last in
                guard now - last >= interval else { return false }
                last = now
                return true
            }
            guard due else { return }
            let percent = progress.total > 0 ? Double(progress.done) * 100 / Double(progress.total) : 100
            console.errorLine(
                "run \(progress.runID): \(Format.count(progress.done))/\(Format.count(progress.total)) "
                    + String(format: "(%.0f%%)", percent)
                    + ", \(Format.rate(progress.rate)) records/s, \(Format.count(progress.failed)) failed"
            )
        case .finished:
            break
        }
    }
}

extension PlainProgress {
    /// The line that opens a run: `run 4: 1,000 records to derive`.
    static func header(runID: Int64, total: Int) -> String {
        "run \(runID): \(Format.count(total, "record")) to derive"
    }
}

/// One JSON object per event on standard output, for programs that watch a run.
final class JSONLinesProgress: ProgressReporter {
    private let console: Console

    init(console: Console) {
        self.console = console
    }

    func report(_ event: ProgressEvent) {
        let object: [String: Any] = switch event {
        case .waiting(let holder):
            ["event": "waiting", "holder": holder.worker, "expiresIn": (holder.expiresIn * 10).rounded() / 10]
        case .started(let runID, let total):
            ["event": "started", "runId": runID, "total": total]
        case .advanced(let progress):
            [
                "event": "progress", "runId": progress.runID, "pipeline": progress.pipeline,
                "done": progress.done, "total": progress.total, "failed": progress.failed,
                "rate": (progress.rate * 10).rounded() / 10,
                "etaSeconds": progress.estimatedRemaining.map { ($0.secondsValue * 10).rounded() / 10 } ?? NSNull(),
                "overdue": progress.overdue.map { ["recordId": $0.recordID, "seconds": Int($0.elapsed.secondsValue)] },
                "batchSize": progress.batchSize ?? NSNull(), "transientRetries": progress.transientRetries,
            ]
        case .held(let hold):
            hold.map { ["event": "held", "hold": $0.description] } ?? ["event": "resumed"]
        case .finished(let summary):
            [
                "event": "finished", "runId": summary.runID, "status": summary.status.rawValue,
                "derived": summary.counts.changed, "unchanged": summary.counts.unchanged,
                "failed": summary.counts.failed, "skipped": summary.counts.skipped,
                "seconds": (summary.elapsed.secondsValue * 1000).rounded() / 1000,
                "rate": (summary.rate * 10).rounded() / 10,
                "projectionsUsed": summary.projections.used, "transientRetries": summary.transientRetries,
                "projectionFallbacks": Dictionary(uniqueKeysWithValues: summary.projections.fallbacks.map { ($0.key.rawValue, $0.value) }),
            ]
        }
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
            console.line(String(decoding: data, as: UTF8.self))
        }
    }
}
