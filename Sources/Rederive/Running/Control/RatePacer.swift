/// Holds the records a run takes to a maximum rate: at any moment, at most `burst` records at once
/// and `rate` per second after them.
///
/// Time in which nothing was taken (the database was out of reach, or the claims found nothing)
/// earns at most one burst, never a catch-up: after an outage of any length, the next second still
/// admits no more than `rate` plus `burst` records.
package struct RatePacer: Sendable {
    /// Records per second.
    package let rate: Double
    /// Records that may be taken at once, after a pause.
    package let burst: Double
    /// Records that may be taken now without waiting, as of `updated`; below zero when the records
    /// already taken are not yet paid for, and the next ones wait.
    private var allowance: Double
    private var updated: ContinuousClock.Instant

    /// A pacer that admits `burst` records at once from `now`, then `rate` per second.
    package init(rate: Double, burst: Int, now: ContinuousClock.Instant) {
        self.rate = rate
        self.burst = Double(max(1, burst))
        allowance = self.burst
        updated = now
    }

    /// Takes `count` records at `now`; returns how long the caller waits before using them. A later
    /// take waits for the earlier ones too.
    package mutating func take(_ count: Int, at now: ContinuousClock.Instant) -> Duration {
        let earned = max(.zero, now - updated).secondsValue * rate
        allowance = min(burst, allowance + earned) - Double(count)
        updated = max(updated, now)
        return allowance >= 0 ? .zero : .seconds(-allowance / rate)
    }

    /// Gives back records that were taken and not used, such as those of a claim that found fewer.
    package mutating func giveBack(_ count: Int) {
        allowance = min(burst, allowance + Double(max(0, count)))
    }
}
