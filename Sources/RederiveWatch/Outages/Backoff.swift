/// How long to wait before trying the database again: doubling from `initial` with each failure up
/// to `maximum`, each wait drawn at random between half and all of that, so that many watchers cut
/// off together do not come back in step.
struct Backoff: Sendable {
    let initial: Duration
    let maximum: Duration
    private var failures = 0

    init(initial: Duration = .milliseconds(100), maximum: Duration) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The wait before the next attempt, after one more failure.
    mutating func next() -> Duration {
        let ceiling = min(maximum, initial * (1 << min(failures, 30)))
        failures += 1
        let half = ceiling / 2
        return half + half * Double.random(in: 0...1)
    }

    /// The database answered: the next failure waits `initial` again.
    mutating func reset() {
        failures = 0
    }
}
