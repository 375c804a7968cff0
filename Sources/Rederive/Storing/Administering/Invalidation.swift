/// What `invalidate` is asked to mark stale, checked against its pipeline before a store changes
/// anything, so that every store refuses the same requests with the same errors
/// (``StoreReporting/invalidate(_:processors:keys:)``).
public struct Invalidation: Sendable {
    /// The pipeline whose records are marked stale.
    public let pipeline: Pipeline
    /// The names of the processors to mark stale: those asked for, or every processor of the pipeline.
    public let processors: [String]
    /// The keys of the records to mark stale; nil for every record.
    public let keys: [String]?

    /// The request to mark `processors` (every processor when nil) stale for the records with `keys`
    /// (every record when nil).
    ///
    /// - Throws: ``RederiveError`` with code ``RederiveError/Code/unknownName`` when the pipeline has
    ///   no processor of a name given, and ``RederiveError/Code/invalidArgument`` when keys are given
    ///   and the pipeline has no key column.
    public init(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) throws(RederiveError) {
        let names = processors ?? pipeline.processors.map(\.name)
        if let unknown = names.first(where: { pipeline.processor(named: $0) == nil }) {
            throw RederiveError(.unknownName, "pipeline \"\(pipeline.name)\" has no processor named \"\(unknown)\"")
        }
        if keys != nil, pipeline.keyColumn == nil {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to select records by")
        }
        self.pipeline = pipeline
        self.processors = names
        self.keys = keys
    }

    /// Refuses the request when some of its keys name no record: `missing`, in the order asked.
    ///
    /// - Throws: ``RederiveError`` with code ``RederiveError/Code/unknownName`` naming every missing key.
    public func requireRecords(missing: [String]) throws(RederiveError) {
        guard !missing.isEmpty else { return }
        throw RederiveError(
            .unknownName,
            "table \"\(pipeline.table)\" has no record with key \(missing.map { "\"\($0)\"" }.joined(separator: ", "))"
        )
    }
}
