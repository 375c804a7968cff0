/// Why a record whose payload processors run was derived from its payload rather than its stored
/// projection; the projection is then written again from the payload.
public enum ProjectionFallback: String, Sendable, Hashable, CaseIterable, Codable {
    /// The record has no projection yet.
    case missing
    /// The payload was replaced since the projection was written.
    case payloadChanged = "payload_changed"
    /// The projection was written by another projection version.
    case versionChanged = "version_changed"
    /// The stored projection's bytes do not match its checksum.
    case checksumMismatch = "checksum_mismatch"
}
