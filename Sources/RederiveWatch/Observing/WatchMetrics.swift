import Metrics

/// The figures a watcher reports, through swift-metrics, under Prometheus' naming conventions.
///
/// Whatever metrics backend the process bootstrapped receives them (`rederive watch` bootstraps
/// swift-prometheus and serves them on `/metrics`); with none, they cost next to nothing.
///
/// | metric | kind | labels |
/// |---|---|---|
/// | `rederive_records_handled_total` | counter | `pipeline`, `processor`, `outcome` |
/// | `rederive_failures_total` | counter | `pipeline`, `kind` |
/// | `rederive_stale_records` | gauge | `pipeline`, `processor` |
/// | `rederive_oldest_stale_record_age_seconds` | gauge | `pipeline` |
/// | `rederive_batch_duration_seconds` | histogram | none |
/// | `rederive_lease_held` | gauge, 1 or 0 | none |
/// | `rederive_transient_retries_total` | counter | `operation` |
/// | `rederive_build_info` | gauge, always 1 | `version` |
public struct WatchMetrics: Sendable {
    /// What became of a record a processor handled.
    public enum Outcome: String, Sendable, CaseIterable {
        /// New values were committed.
        case derived
        /// The values derived were the ones stored; only the stamp was renewed.
        case unchanged
        /// The record failed for this processor.
        case failed
    }

    private let factory: any MetricsFactory

    /// Reports to `factory`, by default the one the process bootstrapped.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// Counts `count` records of `pipeline` that `processor` handled with `outcome`.
    public func recordsHandled(pipeline: String, processor: String, outcome: Outcome, count: Int) {
        guard count > 0 else { return }
        Counter(
            label: "rederive_records_handled_total",
            dimensions: [("pipeline", pipeline), ("processor", processor), ("outcome", outcome.rawValue)],
            factory: factory
        ).increment(by: count)
    }

    /// Counts `count` failures of `kind` (a `FailureKind` raw value) in `pipeline`.
    public func failures(pipeline: String, kind: String, count: Int) {
        guard count > 0 else { return }
        Counter(
            label: "rederive_failures_total", dimensions: [("pipeline", pipeline), ("kind", kind)], factory: factory
        ).increment(by: count)
    }

    /// Sets how many records of `pipeline` are stale for `processor` now.
    public func staleRecords(pipeline: String, processor: String, count: Int) {
        Gauge(
            label: "rederive_stale_records", dimensions: [("pipeline", pipeline), ("processor", processor)],
            factory: factory
        ).record(count)
    }

    /// Sets how long the oldest stale record of `pipeline` has waited, 0 when none is stale.
    public func oldestStaleAge(pipeline: String, seconds: Double) {
        Gauge(
            label: "rederive_oldest_stale_record_age_seconds", dimensions: [("pipeline", pipeline)], factory: factory
        ).record(seconds)
    }

    /// Records how long one commit of a batch took, from its first result to its commit.
    public func batchDuration(seconds: Double) {
        Recorder(label: "rederive_batch_duration_seconds", dimensions: [], aggregate: true, factory: factory)
            .record(seconds)
    }

    /// Sets whether the watcher holds its lease on the store.
    public func leaseHeld(_ held: Bool) {
        Gauge(label: "rederive_lease_held", dimensions: [], factory: factory).record(held ? 1 : 0)
    }

    /// Counts one retry of `operation` (claim, commit, heartbeat, poll) after a transient error.
    public func transientRetry(operation: String) {
        Counter(
            label: "rederive_transient_retries_total", dimensions: [("operation", operation)], factory: factory
        ).increment()
    }

    /// Publishes the build's version as `rederive_build_info{version="…"} 1`.
    public func buildInfo(version: String) {
        Gauge(label: "rederive_build_info", dimensions: [("version", version)], factory: factory).record(1)
    }
}
