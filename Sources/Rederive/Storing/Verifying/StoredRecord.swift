/// A record as it is stored, read for verification: its payload and what its processors' columns hold.
public struct StoredRecord: Sendable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The record's human-readable key, when the pipeline has a key column.
    public let key: String?
    /// The stored payload bytes, compressed or not; nil when NULL.
    public let payload: [UInt8]?
    /// Per processor of the pipeline, in its order: the values its columns hold now.
    public let values: [[DerivedValue]]
    /// Per processor: the stamp of the last derivation that wrote its values, if any.
    public let stamps: [Stamp?]

    /// Which logic version last wrote a processor's values, and whether they are still current.
    public struct Stamp: Sendable, Hashable {
        /// The logic version that wrote the values.
        public let version: Int
        /// False once the payload changed or the record was invalidated.
        public let current: Bool

        /// A stamp of `version`, current or not.
        public init(version: Int, current: Bool) {
            self.version = version
            self.current = current
        }
    }

    /// A record as a ``VerificationSource`` reads it.
    public init(recordID: Int64, key: String?, payload: [UInt8]?, values: [[DerivedValue]], stamps: [Stamp?]) {
        self.recordID = recordID
        self.key = key
        self.payload = payload
        self.values = values
        self.stamps = stamps
    }
}
