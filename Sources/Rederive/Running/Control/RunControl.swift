import Foundation
import Logging
import Synchronization

/// Keeps a process's ``ClaimGate`` in step with what holds its work: reads the stored pauses and
/// cancels (``RunControlling``) once per heartbeat of the lease, checks each ``Throttle`` at its own
/// interval, and reports to the store what holds the process once its workers wait and everything
/// they claimed is committed, so that `rederive status` can say `paused` rather than `pausing`.
///
/// A ``LeaseKeeper`` runs it beside the lease's renewal, for as long as it holds the lease: every
/// run and every watcher honours the stored state without code of its own.
package final class RunControl: Sendable {
    /// The check every claim passes.
    package let gate = ClaimGate()
    private let store: (any RunControlling)?
    private let throttles: [Throttle]
    private let logger: Logger
    /// Told each time what holds the process changes, once settled (nil when it claims again).
    private let observer: (@Sendable (ClaimHold?) -> Void)?
    /// The hold last reported to the store, and under which lease.
    private let reported = Mutex<(token: String, hold: ClaimHold?)?>(nil)
    /// Per throttle that holds now, why and since when.
    private let throttled = Mutex<[String: (reason: String, since: ContinuousClock.Instant)]>([:])
    /// The hold last told to the log and the observer, and since when.
    private let announced = Mutex<(hold: ClaimHold, since: ContinuousClock.Instant)?>(nil)

    /// How often the process looks whether its workers have settled under a hold.
    static let settleInterval: Duration = .milliseconds(50)

    /// Controls the work of a process deriving `store`, with `throttles`; a store that keeps no
    /// stored controls is held by its throttles alone.
    package init(
        store: any RecordStore, throttles: [Throttle] = [], logger: Logger,
        observer: (@Sendable (ClaimHold?) -> Void)? = nil
    ) {
        self.store = store.runControl
        self.throttles = throttles
        self.logger = logger
        self.observer = observer
    }

    /// Reads the stored controls into the gate once; logs the pauses and cancels that are new.
    package func refresh() async throws {
        guard let store else { return }
        let controls = try await store.controls()
        gate.update(controls)
    }

    /// Reads the stored controls and checks every throttle once, before the first claim: a run
    /// started while its work is paused or throttled claims nothing.
    package func prime() async {
        try? await refresh()
        for throttle in throttles {
            await check(throttle)
        }
    }

    /// Until the task is cancelled: reads the stored controls every `heartbeat`, checks the
    /// throttles, and reports the process's hold under the lease `current` returns as it changes.
    package func monitor(heartbeat: Duration, lease current: @escaping @Sendable () -> WorkerLease) async {
        await withTaskGroup(of: Void.self) { group in
            for throttle in throttles {
                group.addTask { await self.watch(throttle) }
            }
            group.addTask { await self.follow(heartbeat: heartbeat, lease: current) }
            await group.waitForAll()
        }
    }

    /// Reads the stored controls every `heartbeat` and reports the settled hold when it changes.
    private func follow(heartbeat: Duration, lease current: @escaping @Sendable () -> WorkerLease) async {
        let clock = ContinuousClock()
        var nextRead = clock.now + heartbeat
        while true {
            do {
                try await Task.sleep(for: Self.settleInterval)
            } catch {
                return
            }
            if clock.now >= nextRead {
                nextRead = clock.now + heartbeat
                // An unreachable database is the renewal's to report; the gate keeps what it knew.
                try? await refresh()
            }
            await report(gate.settledHold, lease: current())
        }
    }

    /// Tells the store, the log and the observer what holds the process now, when that changed.
    private func report(_ hold: ClaimHold?, lease: WorkerLease) async {
        let now = ContinuousClock.now
        let change = announced.withLock { announced -> (before: (hold: ClaimHold, since: ContinuousClock.Instant)?, changed: Bool) in
            let before = announced
            guard before?.hold != hold else { return (before, false) }
            announced = hold.map { ($0, now) }
            return (before, true)
        }
        if change.changed {
            if let hold {
                logger.notice("claims held: \(hold)", metadata: ["hold": "\(hold)"])
            } else if let before = change.before {
                logger.notice("claims resumed", metadata: [
                    "hold": "\(before.hold)", "seconds": "\(Self.seconds(now - before.since))",
                ])
            }
            observer?(hold)
        }
        guard let store, reported.withLock({ $0?.token != lease.token || $0?.hold != hold }) else { return }
        do {
            try await store.reportHold(hold, lease: lease)
            reported.withLock { $0 = (lease.token, hold) }
        } catch {
            // Reported again on the next look.
        }
    }

    /// Checks `throttle` every interval (backing off while it holds) until the task is cancelled.
    private func watch(_ throttle: Throttle) async {
        var wait = throttle.interval
        while true {
            do {
                try await Task.sleep(for: wait)
            } catch {
                return
            }
            let holds = await check(throttle)
            wait = holds ? min(wait * 2, throttle.maximumInterval) : throttle.interval
        }
    }

    /// Checks `throttle` once and holds the gate while it says so; logs a hold's start and end once.
    /// Returns whether it holds.
    @discardableResult
    private func check(_ throttle: Throttle) async -> Bool {
        let reason: String?
        do {
            reason = try await throttle.check()
        } catch {
            reason = Task.isCancelled ? nil : "cannot check: \(error)"
        }
        if Task.isCancelled { return false }
        gate.throttle(throttle.name, holds: reason)
        let now = ContinuousClock.now
        let ended = throttled.withLock { throttled -> (started: Bool, ended: (reason: String, since: ContinuousClock.Instant)?) in
            let before = throttled[throttle.name]
            throttled[throttle.name] = reason.map { reason in before ?? (reason, now) }
            return (before == nil && reason != nil, reason == nil ? before : nil)
        }
        if ended.started, let reason {
            logger.notice("throttle holds", metadata: ["throttle": "\(throttle.name)", "reason": "\(reason)"])
        }
        if let held = ended.ended {
            logger.notice("throttle cleared", metadata: [
                "throttle": "\(throttle.name)", "reason": "\(held.reason)", "seconds": "\(Self.seconds(now - held.since))",
            ])
        }
        return reason != nil
    }

    /// A duration as seconds with one decimal, for log metadata.
    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.secondsValue)
    }
}
