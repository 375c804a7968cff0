/// Where one record stands for one processor. Every record is in exactly one state per processor, so
/// the counts of the states add up to the records.
///
/// These are the words every command and report uses; ``definition`` is the one-line glossary entry.
public enum RecordState: String, Sendable, Hashable, CaseIterable, Codable {
    /// The processor's current version derived the record's values from its current payload and inputs.
    case upToDate = "up to date"
    /// Neither up to date nor failed: the next run derives it.
    case stale
    /// The last attempt at the processor's current version and the record's current payload failed: a
    /// run retries it once the payload or the version changes, or with `--retry-failed`.
    case failed

    /// The state's name as people read it: `up to date`, `stale`, `failed`.
    public var name: String { rawValue }

    /// The state's one-line definition, for help texts, reports and the README's glossary.
    public var definition: String {
        switch self {
        case .upToDate: "the processor's current version derived the record's values from its current payload and inputs"
        case .stale: "neither up to date nor failed: the next run derives it"
        case .failed: "the last attempt at the processor's current version and the record's current payload failed; a run retries it once either changes, or with --retry-failed"
        }
    }
}
