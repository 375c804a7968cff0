import Foundation

/// How a run ended, or that it has not.
public enum RunStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Still going, or ended without a chance to say so (the process was killed).
    case running
    /// Every pending record was handled, or as many as the run was limited to.
    case completed
    /// Cancelled (SIGINT, SIGTERM, task cancellation) before every pending record was handled.
    case interrupted
    /// Stopped by a fatal error.
    case failed
}

/// One processor as a run used it.
public struct ProcessorVersion: Sendable, Hashable, Codable {
    public let pipeline: String
    public let name: String
    public let version: Int

    public init(pipeline: String, name: String, version: Int) {
        self.pipeline = pipeline
        self.name = name
        self.version = version
    }
}

/// A run as recorded in the database.
public struct RunRecord: Sendable, Hashable {
    public let id: Int64
    public let startedAt: Date
    public let endedAt: Date?
    public let status: RunStatus
    public let processors: [ProcessorVersion]
    public let counts: RunCounts

    public init(id: Int64, startedAt: Date, endedAt: Date?, status: RunStatus, processors: [ProcessorVersion], counts: RunCounts) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.status = status
        self.processors = processors
        self.counts = counts
    }
}
