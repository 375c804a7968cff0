import RederiveCodec

extension Pipeline {
    /// Evaluates one payload: decodes it once and runs the selected processors on it, after the
    /// processors they read, whatever is stored. The pipeline's one entry point for what its processors
    /// make of a payload. Never throws: a payload that does not decode fails every processor that
    /// reads it with kind `decoding`, and their dependents with kind `upstream`.
    ///
    /// ```swift
    /// let outcomes = rooms.evaluate(json: Array(json.utf8), selection: [0])
    /// ```
    ///
    /// - Parameters:
    ///   - json: The inflated payload.
    ///   - selection: Indices into `processors` of the processors to run.
    /// - Returns: One outcome per selected index, in the same order.
    public func evaluate(json: [UInt8], selection: [Int]) -> [ProcessorOutcome] {
        outcomes(of: .inflated(json), selection: selection)
    }

    /// ``evaluate(json:selection:)`` on a payload as stored: zlib, raw deflate, gzip or plain JSON.
    /// A payload that is `NULL` or does not inflate within the codec's size limit fails every processor
    /// that reads it with kind `decompression`.
    func evaluate(storedPayload payload: [UInt8]?, selection: [Int], codec: PayloadCodec) -> [ProcessorOutcome] {
        outcomes(of: .stored(payload, codec), selection: selection)
    }

    /// The outcomes of `selection`, in its order, from the payload alone: the processors they read
    /// run too, on the same payload, whatever is stored.
    private func outcomes(of payload: PayloadSource, selection: [Int]) -> [ProcessorOutcome] {
        let run = graph.upstream(of: selection)
        let evaluation = evaluator.evaluate(EvaluationRequest(payload: payload, run: run, dependencies: DependencyState()))
        let byProcessor = Dictionary(evaluation.outcomes.map { ($0.processor, $0.outcome) }, uniquingKeysWith: { first, _ in first })
        return selection.map { byProcessor[$0] ?? .failed(.processor, "not derived") }
    }
}
