/// How current one processor's values are across its pipeline's records: how many records are in each
/// ``RecordState``. The states are disjoint, so `upToDate + stale + failed == records`.
public struct ProcessorStatus: Sendable, Hashable, Codable {
    /// The pipeline the processor belongs to.
    public let pipeline: String
    /// The processor's name.
    public let name: String
    /// The processor's current logic version, which the counts are about.
    public let version: Int
    /// Records in the pipeline's table.
    public let records: Int
    /// Records in state ``RecordState/upToDate``.
    public let upToDate: Int
    /// Records in state ``RecordState/stale``: neither up to date nor failed, derived by the next run.
    public let stale: Int
    /// Records in state ``RecordState/failed``.
    public let failed: Int

    /// Counts for one processor, as a store computes them: every record that is neither up to date
    /// nor failed is stale.
    public init(pipeline: String, name: String, version: Int, records: Int, upToDate: Int, failed: Int) {
        self.pipeline = pipeline
        self.name = name
        self.version = version
        self.records = records
        self.upToDate = upToDate
        self.stale = max(0, records - upToDate - failed)
        self.failed = failed
    }

    /// Records a run derives unless asked to retry failures: the stale ones.
    public var pending: Int { stale }

    /// How many records are in `state`.
    public func count(_ state: RecordState) -> Int {
        switch state {
        case .upToDate: upToDate
        case .stale: stale
        case .failed: failed
        }
    }
}
