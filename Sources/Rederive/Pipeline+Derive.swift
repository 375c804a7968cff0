import RederiveCodec

extension Pipeline {
    /// The one derivation: inflates a stored payload, decodes it once and runs the selected processors
    /// on it. Never throws: a payload that is `NULL` or does not inflate fails every selected processor
    /// with kind `decompression`, one that does not decode with kind `decoding`.
    ///
    /// - Parameters:
    ///   - payload: The payload as stored: zlib, raw deflate, gzip or plain JSON.
    ///   - selection: Indices into ``processors`` of the processors to run.
    ///   - codec: Inflates the payload, within its size limit.
    /// - Returns: One outcome per selected index, in the same order.
    public func derive(payload: [UInt8]?, selection: [Int], codec: PayloadCodec = PayloadCodec()) -> [ProcessorOutcome] {
        guard let payload else {
            return selection.map { _ in .failed(.decompression, "payload is NULL") }
        }
        let json: [UInt8]
        do {
            json = try codec.decode(payload)
        } catch {
            return selection.map { _ in .failed(.decompression, error.message) }
        }
        return evaluate(json: json, selection: selection)
    }
}

extension RecordResult {
    /// Derives a pending record's stale processors: what a worker hands to the writer.
    public init(deriving record: PendingRecord, pipeline: Pipeline, codec: PayloadCodec) {
        let outcomes = pipeline.derive(payload: record.payload, selection: record.staleProcessors, codec: codec)
        self.init(
            recordID: record.recordID,
            generation: record.generation,
            payloadDigest: record.payload.map(PayloadCodec.digest) ?? 0,
            outcomes: zip(record.staleProcessors, outcomes).map { (processor: $0, outcome: $1) }
        )
    }
}
