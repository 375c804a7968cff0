/// The one bound on how long a worker or a watcher waits out its database: claims, commits, the
/// lease's heartbeat and the waits around them all give up past it, with the same error.
package enum OutageLimit {
    /// Whether a wait that began `since` has passed `limit` (never, for no limit).
    package static func passed(_ limit: Duration?, since: ContinuousClock.Instant, now: ContinuousClock.Instant = .now) -> Bool {
        guard let limit else { return false }
        return since.duration(to: now) >= limit
    }

    /// The error that ends a worker past `limit`, in one line: how long, and the last failure's reason.
    package static func exceeded(_ limit: Duration, lastError: any Error) -> RederiveError {
        RederiveError(
            .outage,
            "the database was out of reach for longer than the outage limit of \(Self.text(limit)); "
                + "what was committed stays, and the next run resumes (last error: \(Self.reason(lastError)))"
        )
    }

    /// `300 s`, `2.5 s`: a limit as a person reads it.
    package static func text(_ limit: Duration) -> String {
        let seconds = limit.secondsValue
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\((seconds * 10).rounded() / 10) s"
    }

    private static func reason(_ error: any Error) -> String {
        (error as? RederiveError)?.description ?? "\(error)"
    }
}
