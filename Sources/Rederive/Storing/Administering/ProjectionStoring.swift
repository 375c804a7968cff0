/// What commands read and change of the projections a store keeps (``Projection``): how many serve,
/// whether they agree with their payloads, and dropping them all. A store that keeps no projections
/// need not implement it; its pipelines derive from payloads.
public protocol ProjectionStoring: Sendable {
    /// How many records of the pipeline have a current projection: written from the payload the
    /// record holds now, by the pipeline's projection version.
    func currentProjectionCount(_ pipeline: Pipeline) async throws -> Int

    /// Up to `limit` of the pipeline's current projections, spread over its records at random, each
    /// with its record's payload, for `verify --projections`.
    func projectionSamples(_ pipeline: Pipeline, limit: Int) async throws -> [ProjectionSample]

    /// Deletes every projection of the pipeline, current or not; returns how many. The next run
    /// derives from payloads and writes them again.
    func dropProjections(_ pipeline: Pipeline) async throws -> Int
}

/// A stored projection with its record's payload, to check one against a fresh decode of the other.
public struct ProjectionSample: Sendable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The record's human-readable key, when the pipeline has a key column.
    public let key: String?
    /// The stored payload bytes, compressed or not; nil when NULL.
    public let payload: [UInt8]?
    /// The stored projection's bytes.
    public let projection: [UInt8]
    /// Whether the bytes match the checksum stored with them.
    public let checksumMatches: Bool

    /// A sample as a store reads it.
    public init(recordID: Int64, key: String?, payload: [UInt8]?, projection: [UInt8], checksumMatches: Bool) {
        self.recordID = recordID
        self.key = key
        self.payload = payload
        self.projection = projection
        self.checksumMatches = checksumMatches
    }
}
