/// Why a record could not be derived by a processor.
public enum FailureKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The payload did not inflate: corrupt, truncated, or larger than the configured limit.
    case decompression
    /// The inflated payload did not decode into the pipeline's payload type.
    case decoding
    /// The processor threw, or returned values that do not fit its columns.
    case processor
    /// An input processor failed for the record, so the processor that reads it was not run. It clears
    /// when the input derives again.
    case upstream
    /// The worker process deriving the record died.
    case crash
    /// Deriving the record took longer than the run's per-record timeout, and its worker process was replaced.
    case timeout
}
