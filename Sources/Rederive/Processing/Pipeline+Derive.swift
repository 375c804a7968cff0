import RederiveCodec

extension Pipeline {
    /// The one derivation from a payload alone: inflates a stored payload, decodes it once and runs the
    /// selected processors on it, after the processors they read. Never throws: a payload that is
    /// `NULL` or does not inflate fails every processor that reads it with kind `decompression`, one
    /// that does not decode with kind `decoding`, and their dependents with kind `upstream`.
    ///
    /// - Parameters:
    ///   - payload: The payload as stored: zlib, raw deflate, gzip or plain JSON.
    ///   - selection: Indices into ``processors`` of the processors to run.
    ///   - codec: Inflates the payload, within its size limit.
    /// - Returns: One outcome per selected index, in the same order.
    public func derive(payload: [UInt8]?, selection: [Int], codec: PayloadCodec = PayloadCodec()) -> [ProcessorOutcome] {
        outcomes(of: .stored(payload, codec), selection: selection)
    }
}

extension RecordResult {
    /// Derives a pending record's stale processors, and the dependents whose inputs change, from its
    /// payload and stored values: what a worker hands to the writer.
    public init(deriving record: PendingRecord, pipeline: Pipeline, codec: PayloadCodec) {
        let evaluation = pipeline.evaluator.evaluate(EvaluationRequest(
            payload: record.payloadRead ? .stored(record.payload, codec) : .notRead,
            run: Set(record.staleProcessors),
            dependencies: record.dependencies
        ))
        self.init(
            recordID: record.recordID,
            generation: record.generation,
            payloadDigest: record.payload.map(PayloadCodec.digest) ?? 0,
            outcomes: evaluation.outcomes,
            inputDigests: evaluation.inputDigests
        )
    }
}
