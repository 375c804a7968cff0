import Foundation
import Rederive
import Synchronization

/// `run --progress json` on a store that many workers share: this process's own events, and, once
/// per heartbeat while it derives, a `shared` event with the figures `status` shows for the run: done
/// of the records pending when it started, the rate lately, the time left, and each worker's share,
/// rate, last commit and last heartbeat (``RunProgressText/json(_:)``).
final class SharedRunProgressLines: ProgressReporter {
    private let events: any ProgressReporter
    private let store: any SharedRunReporting
    private let console: Console
    /// The run this process derives now: set by its `started` event, cleared by its `finished` one,
    /// under which a `shared` event is written, so that none follows `finished`.
    private let current = Mutex<Int64?>(nil)

    /// Writes `events`' lines, and the shared figures of the run read from `store`, on `console`.
    init(events: any ProgressReporter, store: any SharedRunReporting, console: Console) {
        self.events = events
        self.store = store
        self.console = console
    }

    func report(_ event: ProgressEvent) {
        switch event {
        case .started(let runID, _):
            current.withLock { $0 = runID }
        case .finished:
            current.withLock { $0 = nil }
        default:
            break
        }
        events.report(event)
    }

    /// Until the task is cancelled: every `interval`, reads the run's figures and writes them. A read
    /// that fails is skipped; the next one may succeed (the run goes on without the database only as
    /// far as its own events say).
    func follow(every interval: Duration) async {
        while true {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            guard let runID = current.withLock({ $0 }),
                  let run = try? await store.runsInProgress().first(where: { $0.runID == runID })
            else { continue }
            var object = RunProgressText.json(run)
            object["id"] = nil
            object["event"] = "shared"
            object["runId"] = runID
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { continue }
            let line = String(decoding: data, as: UTF8.self)
            current.withLock { now in
                if now == runID { console.line(line) }
            }
        }
    }
}
