#if MetricsEndpoint
import Foundation
import NIOHTTP1
import RederiveWatch
import Testing

/// A real Prometheus server scrapes the endpoint, and a counter the watcher's metrics counted reads
/// back through Prometheus' query API.
@Suite(.enabled(if: PrometheusServer.testsRun, PrometheusServer.skipReason), .timeLimit(.minutes(3)))
struct PrometheusScrapeTests {
    @Test func readsACounterBackThroughThePrometheusQueryAPI() async throws {
        let pipeline = "scrape-\(UUID().uuidString.prefix(8).lowercased())"
        let health = WatchHealth()
        health.databaseReachable(true)
        health.leaseHeld(true)
        try await withRunningEndpoint(health: health) { port in
            let metrics = WatchMetrics()
            metrics.recordsHandled(pipeline: pipeline, processor: "room_area", outcome: .derived, count: 40)
            metrics.recordsHandled(pipeline: pipeline, processor: "room_area", outcome: .derived, count: 2)
            metrics.recordsHandled(pipeline: pipeline, processor: "room_area", outcome: .unchanged, count: 5)
            metrics.leaseHeld(true)

            let prometheus = try await PrometheusServer.start(scraping: port)
            defer { prometheus.stop() }
            let query = #"rederive_records_handled_total{job="rederive",pipeline="\#(pipeline)",outcome="derived"}"#
            // Prometheus takes a second or two to start and scrape: ask until the figure is there.
            let deadline = ContinuousClock.now + .seconds(60)
            var last = ""
            while ContinuousClock.now < deadline {
                if let answer = try? await Self.query(query, port: prometheus.port) {
                    last = answer.raw
                    if let value = answer.value {
                        #expect(value == "42", "\(answer.raw)")
                        #expect(answer.labels["processor"] == "room_area")
                        #expect(answer.labels["instance"] == "127.0.0.1:\(port)")
                        return
                    }
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            Issue.record("Prometheus never returned \(query); last answer: \(last)\nits log:\n\(prometheus.logTail)")
        }
    }

    /// The first sample of an instant query's answer: its labels and value; value nil when none yet.
    private static func query(_ expression: String, port: Int) async throws -> (raw: String, labels: [String: String], value: String?) {
        var components = URLComponents()
        components.path = "/api/v1/query"
        components.queryItems = [URLQueryItem(name: "query", value: expression)]
        let uri = components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? "")
            .replacingOccurrences(of: "+", with: "%2B")
        let response = try await HTTPGet.request(port: port, uri: uri)
        guard response.status == .ok,
            let json = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
            json["status"] as? String == "success",
            let data = json["data"] as? [String: Any],
            let results = data["result"] as? [[String: Any]]
        else { return (response.body, [:], nil) }
        guard let first = results.first, let sample = first["value"] as? [Any], sample.count == 2 else {
            return (response.body, [:], nil)
        }
        return (response.body, first["metric"] as? [String: String] ?? [:], sample[1] as? String)
    }
}
#endif
