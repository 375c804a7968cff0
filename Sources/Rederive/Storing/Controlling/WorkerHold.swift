import Foundation

/// Why a process's workers claim nothing now, although records are stale.
public enum ClaimHold: Sendable, Hashable, CustomStringConvertible {
    /// A `rederive pause` holds the work.
    case paused
    /// A throttle holds it: its name and what it measured, as in `replica lag: 12.5 s > 5 s`.
    case throttled(String)

    /// `paused`, or `throttled (replica lag: 12.5 s > 5 s)`: what `status` shows, and stores keep.
    public var description: String {
        switch self {
        case .paused: "paused"
        case .throttled(let reason): "throttled (\(reason))"
        }
    }

    /// Reads back what ``description`` wrote; nil for text that is neither.
    public init?(stored: String) {
        if stored == "paused" {
            self = .paused
        } else if stored.hasPrefix("throttled ("), stored.hasSuffix(")") {
            self = .throttled(String(stored.dropFirst("throttled (".count).dropLast()))
        } else {
            return nil
        }
    }
}

/// A live worker process, with what holds its workers as it reported it: for `status` and `history`.
public struct WorkerHold: Sendable, Hashable {
    /// The process.
    public let worker: WorkerIdentity
    /// The run it derives, when it is in one.
    public let runID: Int64?
    /// What holds it; nil while it claims.
    public let hold: ClaimHold?
    /// Since when it has held: its workers stopped claiming, and what they had claimed is committed.
    public let since: Date?

    /// A worker as a store reads it back.
    public init(worker: WorkerIdentity, runID: Int64?, hold: ClaimHold?, since: Date?) {
        self.worker = worker
        self.runID = runID
        self.hold = hold
        self.since = since
    }
}
