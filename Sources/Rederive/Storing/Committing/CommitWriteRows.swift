/// New derived values of one record.
public struct ValueWrite: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The processors, by index in outcome order, whose columns are written.
    public let processors: [Int]
    /// The values of `processors`' columns, in that order, one per column.
    public let values: [DerivedValue]
}

/// What one record held before a commit changed some of its processors' values.
public struct ReplacedWrite: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The generation the new values were derived at.
    public let generation: Int64
    /// The processors whose values change, by index, with what their columns held.
    public let processors: [ReplacedProcessor]
}

/// What one processor's columns held before a commit replaced them.
public struct ReplacedProcessor: Sendable, Hashable {
    /// The processor's index in its pipeline.
    public let processor: Int
    /// The values replaced.
    public let old: PriorValues
}

/// Values a commit replaced.
public enum PriorValues: Sendable, Hashable {
    /// The values the columns held, as the store read them, one per column.
    case values([DerivedValue])
    /// The record had no row of derived values: its columns held their defaults.
    case defaults
}

/// The stamps a record earns for the processors that derived it.
public struct StampWrite: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The generation of the payload the values were derived from.
    public let generation: Int64
    /// `PayloadCodec.digest(_:)` of that payload.
    public let payloadDigest: Int64
    /// The processors stamped, by index in outcome order.
    public let processors: [Int]
    /// Per dependent processor among them, the ``InputDigest`` of the inputs it derived from.
    public let inputDigests: [Int: Int64]
}

/// One processor's failure on one record.
public struct FailureWrite: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The generation of the payload that failed.
    public let generation: Int64
    /// The processor's index in its pipeline.
    public let processor: Int
    /// Why it failed.
    public let kind: FailureKind
    /// The failure's one-line message.
    public let message: String
}

/// The projection of a record's payload, kept with the values derived from it.
public struct ProjectionWrite: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The generation of the payload it was encoded from.
    public let generation: Int64
    /// The pipeline's projection version.
    public let version: Int
    /// `PayloadCodec.digest(_:)` of the payload.
    public let payloadDigest: Int64
    /// The projection's bytes.
    public let bytes: [UInt8]
}
