extension RecordResult {
    /// The error that stops a run when a processor returned a number of values other than its
    /// columns: a mistake in the processor, not in the record, so it is reported once, as an error of
    /// the run, rather than as a failure of every record. `nil` when every count is right.
    public func valueCountError(in pipeline: Pipeline) -> RederiveError? {
        pipeline.valueCountError(in: outcomes, recordID: recordID)
    }
}

extension Pipeline {
    /// The error of ``RecordResult/valueCountError(in:)`` for one record's outcomes.
    func valueCountError(in outcomes: [(processor: Int, outcome: ProcessorOutcome)], recordID: Int64) -> RederiveError? {
        let pipeline = self
        for (index, outcome) in outcomes {
            guard case .derived(let values) = outcome, index < pipeline.processors.count else { continue }
            let processor = pipeline.processors[index]
            guard values.count != processor.columns.count else { continue }
            return RederiveError(
                .invalidRegistration,
                "processor \(processor.name) of pipeline \(pipeline.name) returned \(count(values.count, "value")) for its "
                    + "\(count(processor.columns.count, "column")) (\(processor.columns.map(\.name).joined(separator: ", "))), "
                    + "first on record \(recordID): derive must return one value per declared column, in their order"
            )
        }
        return nil
    }

    /// `1 value`, `2 values`.
    private func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }
}
