import RederiveCodec

extension Pipeline {
    /// Why a stored projection is not what its payload decodes to now, in one line; nil when it is,
    /// byte for byte, or when the pipeline keeps no projection. What `verify --projections` checks.
    ///
    /// - Parameters:
    ///   - projection: The stored projection's bytes.
    ///   - payload: The record's payload as stored: zlib, raw deflate, gzip or plain JSON.
    ///   - codec: Inflates the payload, within its size limit.
    public func projectionMismatch(_ projection: [UInt8], payload: [UInt8]?, codec: PayloadCodec) -> String? {
        guard let project else { return nil }
        guard let payload else { return "the payload is NULL" }
        let fresh: [UInt8]
        do {
            fresh = try project(try codec.decode(payload))
        } catch {
            return "the payload does not decode to a projection: \(describe(error))"
        }
        guard fresh != projection else { return nil }
        return "the stored projection (\(projection.count) bytes) differs from the payload's (\(fresh.count) bytes)"
    }
}
