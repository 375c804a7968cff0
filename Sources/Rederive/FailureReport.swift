import Foundation

/// A record that a processor could not derive, as recorded by the run that tried.
public struct FailureReport: Sendable, Hashable {
    public let pipeline: String
    public let recordID: Int64
    /// The record's readable key, when its pipeline has a key column.
    public let key: String?
    public let processor: String
    public let version: Int
    public let kind: FailureKind
    public let message: String
    public let runID: Int64?
    public let at: Date

    public init(
        pipeline: String, recordID: Int64, key: String?, processor: String, version: Int,
        kind: FailureKind, message: String, runID: Int64?, at: Date
    ) {
        self.pipeline = pipeline
        self.recordID = recordID
        self.key = key
        self.processor = processor
        self.version = version
        self.kind = kind
        self.message = message
        self.runID = runID
        self.at = at
    }
}

/// Which failures to list.
public struct FailureFilter: Sendable, Hashable {
    public var processors: Set<String>?
    public var runID: Int64?

    public init(processors: Set<String>? = nil, runID: Int64? = nil) {
        self.processors = processors
        self.runID = runID
    }
}
