/// How long to wait before trying the database again: doubling from `initial` with each failure up
/// to `maximum`, each wait drawn at random between half and all of that, so that many watchers cut
/// off together do not come back in step.
package struct Backoff: Sendable {
    /// The ceiling of the first wait.
    package let initial: Duration
    /// The ceiling of every wait.
    package let maximum: Duration
    private var failures = 0

    /// A backoff whose waits double from `initial` up to `maximum`.
    package init(initial: Duration = .milliseconds(100), maximum: Duration) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The wait before the next attempt, after one more failure.
    package mutating func next() -> Duration {
        let ceiling = min(maximum, initial * (1 << min(failures, 30)))
        failures += 1
        let half = ceiling / 2
        return half + half * Double.random(in: 0...1)
    }

    /// The database answered: the next failure waits `initial` again.
    package mutating func reset() {
        failures = 0
    }
}
