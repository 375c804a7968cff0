/// A record's stored projection, handed to the workers in place of its payload when it is current:
/// written from the payload the record holds now, by the pipeline's projection version, its checksum
/// verified as it was read.
public struct StoredProjection: Sendable, Hashable {
    /// The projection's bytes, as the pipeline's ``Projection`` encoded them.
    public let bytes: [UInt8]
    /// `PayloadCodec.digest(_:)` of the payload it was written from, which the stamps of values
    /// derived from it keep.
    public let payloadDigest: Int64

    /// A projection as a store read it.
    public init(bytes: [UInt8], payloadDigest: Int64) {
        self.bytes = bytes
        self.payloadDigest = payloadDigest
    }
}
