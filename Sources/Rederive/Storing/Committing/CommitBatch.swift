/// A batch of results checked for committing: every derived row holds one value per column of its
/// processor, so stores write values by position without checking again. A store reads the
/// ``StoredCommitState`` of ``recordIDs`` inside its transaction and makes the batch's
/// ``CommitPlan`` from it with ``plan(stored:rules:)``.
public struct CommitBatch: Sendable {
    /// The pipeline the results belong to.
    public let pipeline: Pipeline
    let results: [RecordResult]

    /// Checks `results`; throws the error of ``RecordResult/valueCountError(in:)`` of the first result
    /// with too few or too many values: such a batch is refused whole.
    public init(_ results: [RecordResult], of pipeline: Pipeline) throws {
        if let error = results.lazy.compactMap({ $0.valueCountError(in: pipeline) }).first {
            throw error
        }
        self.pipeline = pipeline
        self.results = results
    }

    /// Whether the batch holds no result.
    public var isEmpty: Bool { results.isEmpty }

    /// The number of results, a record met twice counting twice.
    public var count: Int { results.count }

    /// The records of the results, in batch order; a record met twice appears twice.
    public var recordIDs: [Int64] { results.map(\.recordID) }

    /// The generation each result was derived at, in batch order.
    public var generations: [Int64] { results.map(\.generation) }

    /// The processors, by index in ascending order, that derived values for any record of the batch:
    /// the processors whose stored values the plan compares.
    public var derivedProcessors: [Int] {
        Set(results.flatMap { result in
            result.outcomes.compactMap { if case .derived = $0.outcome { $0.processor } else { nil } }
        }).sorted()
    }

    /// The plan for this batch, given what the store read of its records and how it holds values.
    public func plan(stored: [Int64: StoredCommitState], rules: StorageRules) -> CommitPlan {
        CommitPlan(results, pipeline, stored: stored, rules: rules)
    }
}
