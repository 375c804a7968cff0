/// How current one processor's values are across its pipeline's records.
public struct ProcessorStatus: Sendable, Hashable, Codable {
    /// The pipeline the processor belongs to.
    public let pipeline: String
    /// The processor's name.
    public let name: String
    /// The processor's current logic version, which the counts are about.
    public let version: Int
    /// Records in the pipeline's table.
    public let records: Int
    /// Records whose values this version derived from their current payload.
    public let upToDate: Int
    /// Records that are not up to date, failed ones included.
    public let stale: Int
    /// Records whose last attempt at this version and payload failed.
    public let failed: Int

    /// Counts for one processor, as a store computes them.
    public init(pipeline: String, name: String, version: Int, records: Int, upToDate: Int, stale: Int, failed: Int) {
        self.pipeline = pipeline
        self.name = name
        self.version = version
        self.records = records
        self.upToDate = upToDate
        self.stale = stale
        self.failed = failed
    }

    /// Stale records that a run derives without being asked to retry failures.
    public var pending: Int { stale - failed }
}
