import Synchronization

/// Receives a run's progress events and renders them its own way.
///
/// Events arrive in order from the run's task; `report` should return quickly.
/// rederive ships three: ``NoProgress``, ``InMemoryProgress`` for tests, and the command
/// line's terminal renderers.
public protocol ProgressReporter: Sendable {
    /// Renders one event of a run.
    ///
    /// - Parameter event: The run started, a batch was committed, or the run ended.
    func report(_ event: ProgressEvent)
}

/// Ignores every event.
public struct NoProgress: ProgressReporter {
    /// A reporter that shows nothing.
    public init() {}
    /// Ignores the event.
    public func report(_ event: ProgressEvent) {}
}

/// Keeps every event, for tests and for callers that inspect a run afterwards.
public final class InMemoryProgress: ProgressReporter {
    private let storage = Mutex<[ProgressEvent]>([])

    /// A reporter with no events yet.
    public init() {}

    /// Keeps the event, after the ones before it.
    public func report(_ event: ProgressEvent) {
        storage.withLock { $0.append(event) }
    }

    /// The events reported so far, in order.
    public var events: [ProgressEvent] {
        storage.withLock { $0 }
    }
}
