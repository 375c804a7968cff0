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
        let source: PayloadSource = if let damage = record.payloadDamage {
            .unreadable(damage)
        } else if let projection = record.projection {
            .projection(projection.bytes)
        } else if record.payloadRead {
            .stored(record.payload, codec)
        } else {
            .notRead
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
            payloadDigest: record.projection?.payloadDigest ?? record.payload.map(PayloadCodec.digest) ?? 0,
            outcomes: evaluation.outcomes,
            inputDigests: evaluation.inputDigests,
            projection: evaluation.projection,
            derivedFromProjection: evaluation.decodedProjection,
            projectionFallback: record.projectionFallback
        )
    }
}
