/// Where a pending record's payload processors take their input from: the one thing a store read
/// for them, or why there is none.
public enum PendingInput: Sendable, Hashable {
    /// Nothing: no stale processor reads the payload, so none was read, and none is inflated.
    case notRead
    /// The stored payload, compressed or not; nil where it is `NULL`. `fallback` says why the payload
    /// was read although the pipeline keeps projections; nil when it keeps none, or they are not read.
    case payload([UInt8]?, fallback: ProjectionFallback? = nil)
    /// The record's current projection, read instead of its payload.
    case projection(StoredProjection)
    /// The payload could not be read (a damaged page of the store's file): the record fails with this
    /// message, as a payload that does not inflate does, and the rest of the run goes on. `fallback`
    /// as for ``payload(_:fallback:)``.
    case unreadable(String, fallback: ProjectionFallback? = nil)

    /// Why the payload was read, or was to be read, in place of the pipeline's projection.
    public var projectionFallback: ProjectionFallback? {
        switch self {
        case .payload(_, let fallback), .unreadable(_, let fallback): fallback
        case .notRead, .projection: nil
        }
    }
}
