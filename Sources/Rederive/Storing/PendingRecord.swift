/// A record that is stale for at least one processor, as read for derivation.
public struct PendingRecord: Sendable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The payload's generation when it was read: a commit stores values only if it is still current.
    public let generation: Int64
    /// Indices into the pipeline's processors of those that are stale for this record.
    public let staleProcessors: [Int]
    /// What its payload processors derive from.
    public let input: PendingInput
    /// What its dependent processors need of its stored state; empty for a pipeline without them.
    public let dependencies: DependencyState

    /// A pending record as a store reads it.
    public init(
        recordID: Int64, generation: Int64, staleProcessors: [Int], input: PendingInput,
        dependencies: DependencyState = DependencyState()
    ) {
        self.recordID = recordID
        self.generation = generation
        self.staleProcessors = staleProcessors
        self.input = input
        self.dependencies = dependencies
    }

    /// The stored payload bytes read, compressed or not; nil when none were (or the payload is `NULL`).
    public var payload: [UInt8]? {
        if case .payload(let bytes, _) = input { bytes } else { nil }
    }
}

/// What the workers produced for one pending record, ready to commit.
public struct RecordResult: Sendable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The payload's generation when it was read; the commit skips the record if it changed since.
    public let generation: Int64
    /// `PayloadCodec.digest(_:)` of the bytes the values were derived from; 0 when the payload was not read.
    public let payloadDigest: Int64
    /// One outcome per processor derived, in derivation order: the processor's index and what it produced.
    public let outcomes: [(processor: Int, outcome: ProcessorOutcome)]
    /// Per dependent processor that derived: the ``InputDigest`` of the input values it derived from,
    /// which its stamp keeps.
    public let inputDigests: [Int: Int64]
    /// The projection of the payload decoded for this result, for the store to keep with its values;
    /// nil when the payload was not decoded or the pipeline keeps no projection.
    public let projection: [UInt8]?
    /// Whether the payload processors derived from the record's stored projection.
    public let derivedFromProjection: Bool
    /// Why the record was derived from its payload rather than its projection, as the store said.
    public let projectionFallback: ProjectionFallback?

    /// A result for one record, as a ``Runner`` or a ``RecordDeriver`` produces it.
    public init(
        recordID: Int64, generation: Int64, payloadDigest: Int64, outcomes: [(processor: Int, outcome: ProcessorOutcome)],
        inputDigests: [Int: Int64] = [:], projection: [UInt8]? = nil, derivedFromProjection: Bool = false,
        projectionFallback: ProjectionFallback? = nil
    ) {
        self.recordID = recordID
        self.generation = generation
        self.payloadDigest = payloadDigest
        self.outcomes = outcomes
        self.inputDigests = inputDigests
        self.projection = projection
        self.derivedFromProjection = derivedFromProjection
        self.projectionFallback = projectionFallback
    }
}
