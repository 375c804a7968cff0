import ArgumentParser
import Foundation

/// The range a number typed on the command line must fall in, and why its upper end is where it is.
///
/// A value outside is refused before anything starts, as a usage error, in one line that names the
/// option, the value and the bound: `--parallel 100000 is more than 16, the most workers this machine
/// can use (8 per core)`.
struct ValueBound<Value: Comparable & Sendable>: Sendable {
    /// The smallest value accepted.
    let least: Value
    /// The largest value accepted; nil when only the type's own range limits it.
    let most: Value?
    /// What the largest value is, said after it: "the most workers this machine can use (8 per core)".
    let reason: String
    /// The unit the value is typed in ("seconds", "MiB"), or none.
    let unit: String

    init(least: Value, most: Value? = nil, unit: String = "", reason: String = "") {
        self.least = least
        self.most = most
        self.unit = unit
        self.reason = reason
    }

    /// Refuses `value` of `option` when it is outside the bound.
    func check(_ value: Value, _ option: String) throws(ValidationError) {
        if let number = value as? Double, !number.isFinite {
            throw ValidationError("\(option) must be a number\(unit.isEmpty ? "" : " of \(unit)"), not \(number)")
        }
        if value < least {
            throw ValidationError("\(option) must be at least \(measure(least)), not \(Self.text(value))")
        }
        if let most, value > most {
            throw ValidationError("\(option) \(Self.text(value)) is more than \(measure(most)), \(reason)")
        }
    }

    /// Refuses `value` of `option` when it is given and outside the bound.
    func check(_ value: Value?, _ option: String) throws(ValidationError) {
        if let value { try check(value, option) }
    }

    /// A bound with its unit: `16`, `1 second`, `3600 seconds`.
    private func measure(_ value: Value) -> String {
        let text = Self.text(value)
        if unit.isEmpty { return text }
        return text == "1" && unit == "seconds" ? "1 second" : "\(text) \(unit)"
    }

    /// A value as a person would type it: `16`, `0.5`, `3600`.
    private static func text(_ value: Value) -> String {
        if let number = value as? Double {
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        }
        return "\(value)"
    }
}

/// The bounds of every number any command takes, in one place so that every command applies the same
/// rule to the same kind of value.
///
/// Counts that size what the process holds at once (threads, worker processes, memory) stop at what
/// this machine can use; durations stop where a longer one would only keep a killed process's work
/// waiting or overflow the clock; counts of records read (`--limit`, `--sample`) need only be
/// positive, since the database bounds them and they are streamed, never held at once; counts of
/// records written (`generate --count`, `demo --count`) stop where a typo would fill a disk.
enum ValueBounds {
    /// Workers one core can keep busy: deriving is CPU work, but reading payloads and waiting on the
    /// database leave room for a few per core. `run --parallel 8` on a two-core machine stays accepted.
    static let workersPerCore = 8

    /// The cores this process may use.
    static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Workers of `run`, `verify` and `import`: a thread each, or with `run --isolate` a worker process each.
    static var workers: ValueBound<Int> {
        ValueBound(
            least: 1, most: workersPerCore * cores,
            reason: "the most workers this machine can use (\(workersPerCore) per core)"
        )
    }

    /// Records committed in one transaction: memory holds a few batches of payloads, and a larger
    /// transaction holds the write lock longer without deriving any faster.
    static let batchSize = ValueBound(
        least: 1, most: 100_000, reason: "the most records one transaction commits"
    )

    /// How long one commit should take when batches are sized toward it: a longer transaction keeps
    /// the app's writes waiting (SQLite's one write lock, PostgreSQL's locks on the rows written).
    static let targetBatchDuration = ValueBound<Double>(
        least: 0.001, most: 60, unit: "seconds",
        reason: "a minute, the longest a commit may keep the app's writes waiting"
    )

    /// The most a payload may inflate to, in MiB: no more than this machine's memory.
    static var payloadMiB: ValueBound<Int> {
        ValueBound(least: 1, most: memoryMiB, unit: "MiB", reason: "this machine's memory")
    }

    /// The most a payload may inflate to, in bytes, as the parent passes it to a worker process.
    static var payloadBytes: ValueBound<Int> {
        ValueBound(least: 1, most: memoryMiB << 20, unit: "bytes", reason: "this machine's memory")
    }

    /// A number of records, runs or entries: at least one; the database bounds the rest.
    static let records = ValueBound<Int>(least: 1)

    /// Synthetic records `generate` writes: unlike the counts above, each one adds a payload to the
    /// disk (about 57 KB of RoomPlan scan), so a typo could fill it.
    static let generatedRecords = ValueBound<Int>(
        least: 1, most: 1_000_000, reason: "the most synthetic records generate writes; import real exports for a larger corpus"
    )

    /// Synthetic records of `rederive demo`, which shows rederive on a corpus derived in seconds.
    static let demoRecords = ValueBound<Int>(
        least: 1, most: 100_000, reason: "the most records of a demo; use rederive generate for a larger corpus"
    )

    /// Backups kept by `--keep-backups`: at least one; the disk bounds the rest.
    static let backups = ValueBound<Int>(least: 1)

    /// Records per second for `--max-rate`: from one every 1,000 seconds to a rate no run reaches
    /// (leave the option out for no limit).
    static let recordsPerSecond = ValueBound<Double>(
        least: 0.001, most: 1_000_000, unit: "records per second",
        reason: "faster than any run derives; leave --max-rate out for no limit"
    )

    /// How long one record may take before it is flagged or, isolated, stopped.
    static let recordTimeout = ValueBound<Double>(
        least: 0.001, most: 86_400, unit: "seconds", reason: "a day; leave --timeout out for no timeout"
    )

    /// How long a lease lasts without renewal: a killed process keeps others waiting this long.
    static let leaseDuration = ValueBound<Double>(
        least: 1, most: 3_600, unit: "seconds", reason: "an hour, the longest a killed run may keep the database from others"
    )

    /// How long `run` and `watch` wait out a database out of reach (`--outage-limit`): a day, past
    /// which an outage is a database gone, not one restarting or failing over.
    static let outageLimit = ValueBound<Double>(
        least: 1, most: 86_400, unit: "seconds", reason: "a day; a watcher left without --outage-limit waits without end"
    )

    /// How long `run --wait` waits for another process's lease: a day, past which a holder is a
    /// watcher that stays, not a run that ends.
    static let leaseWait = ValueBound<Double>(
        least: 0, most: 86_400, unit: "seconds", reason: "a day; leave --wait out to wait as long as the holder runs"
    )

    /// How long `watch` waits for a change signal before it looks for stale records anyway: a signal
    /// lost delays records this long at most.
    static let pollInterval = ValueBound<Double>(
        least: 0.1, most: 3_600, unit: "seconds", reason: "an hour, the longest a lost signal may delay a record"
    )

    /// How long a stopping `watch` waits for the records in flight.
    static let drainTimeout = ValueBound<Double>(
        least: 0.1, most: 3_600, unit: "seconds", reason: "an hour; a service manager stops a process that takes longer"
    )

    /// How often a throttle is checked: its backoff while it holds reaches 4 times that.
    static let throttleInterval = ValueBound<Double>(
        least: 0.1, most: 3_600, unit: "seconds", reason: "an hour, the longest a cleared throttle may keep a run waiting"
    )

    /// The write-ahead log `--max-wal-size` allows before the run holds: up to a TiB.
    static let walMiB = ValueBound<Int>(
        least: 1, most: 1 << 20, unit: "MiB", reason: "a TiB; leave --max-wal-size out for no bound"
    )

    /// The replica lag `--max-replica-lag` allows before the run holds.
    static let replicaLag = ValueBound<Double>(
        least: 0.1, most: 86_400, unit: "seconds", reason: "a day; leave --max-replica-lag out for no bound"
    )

    /// How long to wait for another connection's write lock before failing.
    static let busyTimeout = ValueBound<Double>(
        least: 0, most: 3_600, unit: "seconds", reason: "an hour; a lock held longer belongs to a process that is stuck"
    )

    /// This machine's memory in MiB.
    private static var memoryMiB: Int {
        Int(clamping: ProcessInfo.processInfo.physicalMemory >> 20)
    }
}
