extension RecordFailure {
    /// `failures` of one pipeline in the order reports list them: by record id, and a record's
    /// failures in the order of the pipeline's processors. Every store returns
    /// ``StoreReporting/failures(of:filter:)`` in this order.
    public static func ordered(_ failures: [RecordFailure], in pipeline: Pipeline) -> [RecordFailure] {
        let order = Dictionary(uniqueKeysWithValues: pipeline.processors.enumerated().map { ($1.name, $0) })
        return failures.sorted { ($0.recordID, order[$0.processor] ?? 0) < ($1.recordID, order[$1.processor] ?? 0) }
    }
}
