import Foundation

/// What a store can tell of the database's health, for the throttles that hold a run's claims
/// (``Throttle``): `run --pause-while`, `--max-wal-size` and `--max-replica-lag`.
public protocol HealthSignals: Sendable {
    /// Runs `sql` in a read-only transaction and returns its one boolean: one row of one column, a
    /// boolean (or, on SQLite, an integer, where 0 is false). Any other answer throws, naming it.
    func conditionHolds(_ sql: String) async throws -> Bool

    /// The bytes of the write-ahead log not yet copied into the database, measured after a passive
    /// checkpoint (which never waits for readers or writers); nil where the store keeps no such log.
    func uncheckpointedLogSize() async throws -> Int?

    /// How far behind the primary the most lagging streaming standby is in replaying its changes;
    /// nil when no standby is connected, or the store has none.
    func replicaLag() async throws -> Duration?
}

extension Throttle {
    /// Holds while `sql` returns true, checked every `interval` (`run --pause-while`): the escape
    /// hatch for any signal a query can read, such as a maintenance flag or autovacuum on a table.
    public static func pausing(while sql: String, on store: any HealthSignals, every interval: Duration = .seconds(5)) -> Throttle {
        Throttle(name: "pause-while", every: interval) {
            try await store.conditionHolds(sql) ? "its query returns true" : nil
        }
    }

    /// Holds while more than `bytes` of the write-ahead log wait to be checkpointed
    /// (`run --max-wal-size`): a reader that keeps SQLite from checkpointing lets the log grow, and
    /// every commit of the run grows it further.
    public static func writeAheadLog(above bytes: Int, on store: any HealthSignals, every interval: Duration = .seconds(1)) -> Throttle {
        Throttle(name: "WAL size", every: interval) {
            guard let size = try await store.uncheckpointedLogSize(), size > bytes else { return nil }
            let (shown, bound) = distinct(Double(size) / 1_048_576, Double(bytes) / 1_048_576)
            return "\(shown) MiB not checkpointed > \(bound) MiB"
        }
    }

    /// Holds while a streaming standby replays more than `limit` behind the primary
    /// (`run --max-replica-lag`).
    public static func replicaLag(above limit: Duration, on store: any HealthSignals, every interval: Duration = .seconds(1)) -> Throttle {
        Throttle(name: "replica lag", every: interval) {
            guard let lag = try await store.replicaLag(), lag > limit else { return nil }
            let (shown, bound) = distinct(lag.secondsValue, limit.secondsValue)
            return "\(shown) s > \(bound) s"
        }
    }

    /// `value` and `bound` to a tenth, or to as many more digits (up to a millionth) as it takes for
    /// `value`, which exceeds `bound`, not to read as equal to it: `2.04 s > 2 s`, not `2 s > 2 s`.
    static func distinct(_ value: Double, _ bound: Double) -> (String, String) {
        var digits = 1
        while digits < 6, rounded(value, digits) == rounded(bound, digits) {
            digits += 1
        }
        return (rounded(value, digits), rounded(bound, digits))
    }

    /// `value` to `digits` decimals at most, without trailing zeros: `2`, `2.04`.
    private static func rounded(_ value: Double, _ digits: Int) -> String {
        var text = String(format: "%.\(digits)f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
