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
    /// Ended by `rederive cancel` (``RunControlling/cancel(_:)``), with what it had committed: it
    /// can be rolled back as any run can.
    case cancelled
}

/// One processor as a run used it.
public struct ProcessorVersion: Sendable, Hashable, Codable {
    /// The pipeline the processor belongs to.
    public let pipeline: String
    /// The processor's name.
    public let name: String
    /// The logic version the run derived with.
    public let version: Int

    /// A processor at a version, as a run records it.
    public init(pipeline: String, name: String, version: Int) {
        self.pipeline = pipeline
        self.name = name
        self.version = version
    }
}

/// A run as recorded in the database.
public struct RunHistoryEntry: Sendable, Hashable {
    /// The run's id, increasing with every run of the database.
    public let id: Int64
    /// When the run started.
    public let startedAt: Date
    /// When the run ended; nil while it runs, or when it was killed before it could say so.
    public let endedAt: Date?
    /// How the run ended, or that it has not.
    public let status: RunStatus
    /// The processors the run brought up to date, at the versions it used.
    public let processors: [ProcessorVersion]
    /// What the run did: derived, unchanged, failed and skipped records.
    public let counts: RunCounts

    /// A run as a store reads it back.
    public init(id: Int64, startedAt: Date, endedAt: Date?, status: RunStatus, processors: [ProcessorVersion], counts: RunCounts) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.status = status
        self.processors = processors
        self.counts = counts
    }
}
