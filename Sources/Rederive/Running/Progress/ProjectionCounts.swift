/// How a run used stored projections: records derived from them, and records that fell back to
/// their payload, by reason.
public struct ProjectionCounts: Sendable, Hashable, Codable {
    /// Records whose payload processors derived from the stored projection, reading no payload.
    public var used = 0
    /// Records derived from their payload instead, by why the projection could not serve.
    public var fallbacks: [ProjectionFallback: Int] = [:]

    /// No records counted.
    public init() {}

    /// Every fallback, whatever its reason.
    public var fallbackTotal: Int { fallbacks.values.reduce(0, +) }

    /// Counts what the results of one commit did.
    mutating func count(_ results: [RecordResult]) {
        for result in results {
            if result.derivedFromProjection { used += 1 }
            if let reason = result.projectionFallback { fallbacks[reason, default: 0] += 1 }
        }
    }
}
