#if MetricsEndpoint
import Foundation
import Logging
import NIOHTTP1
import Rederive
import RederiveMetricsEndpoint
import RederiveWatch
import Testing

/// The endpoint's three paths answer with the status their state calls for, and `/metrics` holds the
/// watcher's figures under their Prometheus names, in the text format.
@Suite(.timeLimit(.minutes(2)))
struct MetricsEndpointTests {
    @Test func answersAliveReadyAndUnknownPaths() async throws {
        let health = WatchHealth()
        try await withRunningEndpoint(health: health) { port in
            let alive = try await HTTPGet.request(port: port, uri: "/healthz")
            #expect(alive.status == .ok)

            let starting = try await HTTPGet.request(port: port, uri: "/readyz")
            #expect(starting.status == .serviceUnavailable)
            #expect(starting.body == "not ready: starting\n")

            health.databaseReachable(true)
            health.leaseHeld(true)
            let ready = try await HTTPGet.request(port: port, uri: "/readyz")
            #expect(ready.status == .ok)
            #expect(ready.body == "ready\n")

            health.databaseReachable(false, reason: "connection refused by 127.0.0.1:5432")
            let outage = try await HTTPGet.request(port: port, uri: "/readyz?verbose")
            #expect(outage.status == .serviceUnavailable)
            #expect(outage.body == "not ready: connection refused by 127.0.0.1:5432\n")

            health.databaseReachable(true)
            health.leaseHeld(false)
            let lost = try await HTTPGet.request(port: port, uri: "/readyz")
            #expect(lost.status == .serviceUnavailable)
            #expect(lost.body == "not ready: the lease is not held\n")

            #expect(try await HTTPGet.request(port: port, uri: "/").status == .notFound)
            #expect(try await HTTPGet.request(port: port, uri: "/metrics/extra").status == .notFound)

            let posted = try await HTTPGet.request(.POST, port: port, uri: "/metrics")
            #expect(posted.status == .methodNotAllowed)
            #expect(posted.headers["Allow"] == ["GET, HEAD"])
            #expect(try await HTTPGet.request(.DELETE, port: port, uri: "/healthz").status == .methodNotAllowed)

            let head = try await HTTPGet.request(.HEAD, port: port, uri: "/healthz")
            #expect(head.status == .ok)
            #expect(head.body.isEmpty)
            #expect(head.headers["Content-Length"] == ["6"])
        }
    }

    @Test func servesTheWatcherFiguresInPrometheusTextFormat() async throws {
        // Process-wide metrics are shared by every test: this one's pipeline name is its own.
        let pipeline = "format-\(UUID().uuidString.prefix(8).lowercased())"
        try await withRunningEndpoint(health: WatchHealth()) { port in
            let metrics = WatchMetrics()
            metrics.recordsHandled(pipeline: pipeline, processor: "room_area", outcome: .derived, count: 3)
            metrics.recordsHandled(pipeline: pipeline, processor: "room_area", outcome: .failed, count: 1)
            metrics.failures(pipeline: pipeline, kind: "decode", count: 1)
            metrics.staleRecords(pipeline: pipeline, processor: "room_area", count: 120)
            metrics.oldestStaleAge(pipeline: pipeline, seconds: 4.5)
            metrics.batchDuration(seconds: 0.03)
            metrics.leaseHeld(true)
            metrics.buildInfo(version: "9.9.9-test")

            let response = try await HTTPGet.request(port: port, uri: "/metrics")
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"] == ["text/plain; version=0.0.4; charset=utf-8"])
            let lines = response.body.split(separator: "\n").map(String.init)

            #expect(lines.contains("# TYPE rederive_records_handled_total counter"))
            #expect(lines.contains(#"rederive_records_handled_total{pipeline="\#(pipeline)",processor="room_area",outcome="derived"} 3"#))
            #expect(lines.contains(#"rederive_records_handled_total{pipeline="\#(pipeline)",processor="room_area",outcome="failed"} 1"#))
            #expect(lines.contains("# TYPE rederive_failures_total counter"))
            #expect(lines.contains(#"rederive_failures_total{pipeline="\#(pipeline)",kind="decode"} 1"#))
            #expect(lines.contains("# TYPE rederive_stale_records gauge"))
            #expect(lines.contains(#"rederive_stale_records{pipeline="\#(pipeline)",processor="room_area"} 120.0"#))
            #expect(lines.contains("# TYPE rederive_oldest_stale_record_age_seconds gauge"))
            #expect(lines.contains(#"rederive_oldest_stale_record_age_seconds{pipeline="\#(pipeline)"} 4.5"#))
            #expect(lines.contains("# TYPE rederive_batch_duration_seconds histogram"))
            // Buckets in seconds: the batch of 30 ms falls in the 50 ms bucket, not in the 10 ms one.
            #expect(lines.contains(where: { $0.hasPrefix(#"rederive_batch_duration_seconds_bucket{le="0.01"} "#) }))
            #expect(lines.contains(where: { $0.hasPrefix(#"rederive_batch_duration_seconds_bucket{le="0.05"} "#) }))
            #expect(lines.contains(where: { $0.hasPrefix("rederive_batch_duration_seconds_count ") }))
            #expect(lines.contains(where: { $0.hasPrefix("rederive_batch_duration_seconds_sum ") }))
            #expect(lines.contains("# TYPE rederive_lease_held gauge"))
            #expect(lines.contains("rederive_lease_held 1.0"))
            #expect(lines.contains("# TYPE rederive_build_info gauge"))
            #expect(lines.contains(#"rederive_build_info{version="9.9.9-test"} 1.0"#))
        }
    }

    @Test func stopsListeningWhenTheGroupShutsDown() async throws {
        let port = try await withRunningEndpoint(health: WatchHealth()) { port -> Int in
            let alive = try await HTTPGet.request(port: port, uri: "/healthz")
            #expect(alive.status == .ok)
            return port
        }
        await #expect(throws: (any Error).self) {
            _ = try await HTTPGet.request(port: port, uri: "/healthz")
        }
    }

    @Test func refusesAnAddressInUseInOneLine() async throws {
        try await withRunningEndpoint(health: WatchHealth()) { port in
            let logger = Logger(label: "rederive.test.metrics", factory: { _ in SwiftLogNoOpLogHandler() })
            let second = try MetricsEndpoint(address: "127.0.0.1:\(port)", health: WatchHealth(), logger: logger)
            do {
                try await second.run()
                Issue.record("a second endpoint listened on \(port)")
            } catch let error as RederiveError {
                #expect(error.message == "cannot serve metrics on 127.0.0.1:\(port): address already in use")
            }
            await #expect(throws: RederiveError.self) { _ = try await second.boundPort() }
        }
    }
}
#endif
