import RederiveCodec

extension RecordResult {
    /// Evaluates a pending record: runs its stale processors, and the dependents whose inputs change,
    /// on its payload and stored values. What a worker hands to the writer, and what a
    /// ``RecordDeriver`` returns for the record.
    ///
    /// - Parameters:
    ///   - record: The record as a store claimed it.
    ///   - pipeline: The pipeline whose processors run.
    ///   - codec: Inflates the payload, within its size limit.
    public init(evaluating record: PendingRecord, pipeline: Pipeline, codec: PayloadCodec) {
        let source: PayloadSource = switch record.input {
        case .notRead: .notRead
        case .payload(let bytes, _): .stored(bytes, codec)
        case .projection(let projection): .projection(projection.bytes)
        case .unreadable(let damage, _): .unreadable(damage)
        }
        let payloadDigest: Int64 = switch record.input {
        case .payload(let bytes?, _): PayloadCodec.digest(bytes)
        case .projection(let projection): projection.payloadDigest
        case .notRead, .payload(nil, _), .unreadable: 0
        }
        let evaluation = pipeline.evaluator.evaluate(EvaluationRequest(
            payload: source,
            run: Set(record.staleProcessors),
            dependencies: record.dependencies,
            writesProjection: true
        ))
        self.init(
            recordID: record.recordID,
            generation: record.generation,
            payloadDigest: payloadDigest,
            outcomes: evaluation.outcomes,
            inputDigests: evaluation.inputDigests,
            projection: evaluation.projection,
            derivedFromProjection: evaluation.decodedProjection,
            projectionFallback: record.input.projectionFallback
        )
    }
}
