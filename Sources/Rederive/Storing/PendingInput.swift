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

    /// The input a store hands out, by one rule for every store: a current projection when one serves;
    /// else the payload's damage when it could not be read; else the payload when a processor that
    /// reads it runs (`readsPayload`), with why no projection served; else nothing.
    public init(
        projection: StoredProjection?, readsPayload: Bool, payload: [UInt8]?, fallback: ProjectionFallback?, damage: String? = nil
    ) {
        self = if let projection {
            .projection(projection)
        } else if let damage {
            .unreadable(damage, fallback: fallback)
        } else if readsPayload {
            .payload(payload, fallback: fallback)
        } else {
            .notRead
        }
    }

    /// Why the payload was read, or was to be read, in place of the pipeline's projection.
    public var projectionFallback: ProjectionFallback? {
        switch self {
        case .payload(_, let fallback), .unreadable(_, let fallback): fallback
        case .notRead, .projection: nil
        }
    }
}
