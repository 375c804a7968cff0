#if MetricsEndpoint
import CoreMetrics
import Prometheus

/// The process's swift-prometheus registry, which the process's `MetricsSystem` reports to.
///
/// `MetricsSystem` can be bootstrapped once per process: the first read of ``registry`` does it, and
/// every later read returns the same registry. A process that bootstrapped another backend first
/// cannot use it; such an app serves its own metrics.
public enum PrometheusMetrics {
    /// The registry every swift-metrics figure of the process lands in, bootstrapping on first use.
    public static var registry: PrometheusCollectorRegistry { bootstrapped }

    private static let bootstrapped: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Batch durations are recorded in seconds; the factory's default value buckets (5 to 10,000)
        // would put every batch in the first one.
        factory.valueHistogramBuckets["rederive_batch_duration_seconds"] = [
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()
}
#endif
