/// Makes synthetic payloads for a pipeline, for `rederive generate` and `rederive demo`.
///
/// Both closures are deterministic in `(seed, index)`, so a corpus can be rebuilt exactly.
public struct SampleSource: Sendable {
    /// The pipeline the samples are for.
    public let pipeline: String
    /// The JSON of a valid record.
    public let make: @Sendable (_ seed: UInt64, _ index: Int) -> [UInt8]
    /// The JSON of a deliberately broken record and a few words on what is wrong with it.
    public let makeBroken: @Sendable (_ seed: UInt64, _ index: Int) -> (json: [UInt8], defect: String)

    /// Samples for `pipeline` from the two deterministic closures.
    public init(
        pipeline: String,
        make: @escaping @Sendable (UInt64, Int) -> [UInt8],
        makeBroken: @escaping @Sendable (UInt64, Int) -> (json: [UInt8], defect: String)
    ) {
        self.pipeline = pipeline
        self.make = make
        self.makeBroken = makeBroken
    }
}
