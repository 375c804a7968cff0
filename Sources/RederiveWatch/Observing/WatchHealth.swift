import Synchronization

/// Whether a watcher can do its work now: what `/readyz` answers.
///
/// The watcher sets it as it goes; an HTTP endpoint or an app reads it. Alive is the process answering
/// at all (`/healthz`); ready is the database reachable and the lease held.
public final class WatchHealth: Sendable {
    /// One reading of the watcher's health.
    public struct Snapshot: Sendable, Equatable {
        /// The last statement on the database succeeded.
        public var databaseReachable: Bool
        /// The watcher holds its lease on the store.
        public var leaseHeld: Bool
        /// Why the watcher is not ready, for a person: the last connection error, say; nil when ready.
        public var reason: String?

        /// The watcher can claim and commit now.
        public var isReady: Bool { databaseReachable && leaseHeld }
    }

    private let state = Mutex(Snapshot(databaseReachable: false, leaseHeld: false, reason: "starting"))

    /// Creates a health that reads not ready until the watcher says otherwise.
    public init() {}

    /// The watcher's health now.
    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Records that the database answered (`true`) or could not be reached (`false`, with why).
    public func databaseReachable(_ reachable: Bool, reason: String? = nil) {
        state.withLock {
            $0.databaseReachable = reachable
            $0.reason = reachable ? ($0.leaseHeld ? nil : "the lease is not held") : reason ?? "the database cannot be reached"
        }
    }

    /// Records that the watcher holds its lease (`true`) or lost or released it (`false`).
    public func leaseHeld(_ held: Bool) {
        state.withLock {
            $0.leaseHeld = held
            if $0.databaseReachable { $0.reason = held ? nil : "the lease is not held" }
        }
    }
}
