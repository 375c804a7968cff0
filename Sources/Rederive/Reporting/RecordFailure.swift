import Foundation

/// A record that a processor could not derive, as recorded by the run that tried.
public struct RecordFailure: Sendable, Hashable {
    /// The pipeline of the record.
    public let pipeline: String
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The record's readable key, when its pipeline has a key column.
    public let key: String?
    /// The processor that could not derive the record.
    public let processor: String
    /// The processor's logic version that failed.
    public let version: Int
    /// Whether the payload did not inflate or decode, the processor failed, or its worker crashed.
    public let kind: FailureKind
    /// What is wrong, in one line written for a person: the codec's, the decoder's or the processor's error.
    public let message: String
    /// The run that recorded the failure, when a run did.
    public let runID: Int64?
    /// When the failure was recorded.
    public let at: Date

    /// Creates a report; stores make these, callers usually only read them.
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
    /// Only these processors' failures; every processor's when nil.
    public var processors: Set<String>?
    /// Only failures recorded by this run; any run's when nil.
    public var runID: Int64?

    /// A filter; with no arguments it lets every current failure through.
    public init(processors: Set<String>? = nil, runID: Int64? = nil) {
        self.processors = processors
        self.runID = runID
    }
}
