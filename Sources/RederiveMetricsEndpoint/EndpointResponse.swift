#if MetricsEndpoint
import NIOHTTP1
import Prometheus
import RederiveWatch

/// What the endpoint answers to one request: `/metrics` in Prometheus' text format, `/healthz` alive,
/// `/readyz` the watcher's readiness; 404 elsewhere, 405 for a method other than GET or HEAD.
struct EndpointResponse {
    let status: HTTPResponseStatus
    let contentType: String
    let body: [UInt8]
    /// Methods the path allows, sent with a 405.
    let allow: String?

    /// Prometheus' text exposition format, version 0.0.4.
    static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The response to `method` on `uri` (its query, if any, is ignored).
    static func answering(
        method: HTTPMethod, uri: String, health: WatchHealth, registry: PrometheusCollectorRegistry
    ) -> EndpointResponse {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
        guard ["/metrics", "/healthz", "/readyz"].contains(path) else {
            return text(.notFound, "not found: \(path) (the endpoint serves /metrics, /healthz and /readyz)")
        }
        guard method == .GET || method == .HEAD else {
            return EndpointResponse(
                status: .methodNotAllowed, contentType: "text/plain; charset=utf-8",
                body: Array("\(method.rawValue) is not allowed: use GET or HEAD\n".utf8), allow: "GET, HEAD"
            )
        }
        switch path {
        case "/metrics":
            return EndpointResponse(status: .ok, contentType: prometheusContentType, body: registry.emitToBuffer(), allow: nil)
        case "/healthz":
            return text(.ok, "alive")
        default:
            let snapshot = health.snapshot
            if snapshot.isReady { return text(.ok, "ready") }
            return text(.serviceUnavailable, "not ready: \(snapshot.reason ?? "the watcher is not ready")")
        }
    }

    private static func text(_ status: HTTPResponseStatus, _ line: String) -> EndpointResponse {
        EndpointResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array("\(line)\n".utf8), allow: nil)
    }
}
#endif
