#if MetricsEndpoint
import Glibc
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import Rederive
import RederiveWatch
import ServiceLifecycle
import Synchronization

/// An HTTP endpoint for a watcher, as a service of a `ServiceGroup`: `/metrics` in Prometheus' text
/// format (every swift-metrics figure of the process, `PrometheusMetrics`), `/healthz` (200 while the
/// process answers) and `/readyz` (200 when the watcher's `WatchHealth` is ready, else 503 with why).
///
/// Built on SwiftNIO's HTTP/1 server. It answers GET and HEAD, 404 on other paths. A graceful shutdown
/// of its group stops it listening and closes its connections.
///
/// ```swift
/// let endpoint = try MetricsEndpoint(address: "127.0.0.1:9464", health: health, logger: logger)
/// let group = ServiceGroup(services: [watcher, endpoint], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
public struct MetricsEndpoint: Service {
    /// Where the endpoint listens, as given; its port is 0 when the system chooses one (``boundPort()``).
    public let address: EndpointAddress
    private let health: WatchHealth
    private let registry: PrometheusCollectorRegistry
    private let logger: Logger
    private let bound = BoundPort()

    /// Connections served at once; more wait in the listen backlog. A scraper holds one or two.
    static let maximumConnections = 16

    /// Prepares an endpoint on `address` (`HOST:PORT`; port 0 lets the system choose), reading
    /// readiness from `health` and metrics from `registry`, by default the process's own.
    ///
    /// Throws one line naming the address when it is not `HOST:PORT`. Nothing listens before ``run()``.
    public init(
        address: String, health: WatchHealth, registry: PrometheusCollectorRegistry = PrometheusMetrics.registry,
        logger: Logger
    ) throws {
        self.address = try EndpointAddress(parsing: address)
        self.health = health
        self.registry = registry
        self.logger = logger
    }

    /// The port the endpoint listens on, once ``run()`` has bound it: the one asked for, or the one
    /// the system chose for port 0. Throws what binding threw; waits until `run()` binds.
    public func boundPort() async throws -> Int {
        try await bound.value()
    }

    /// Listens and answers until the group shuts down gracefully or the task is cancelled.
    ///
    /// Throws one line naming the address when it cannot listen there (in use, or no such host).
    public func run() async throws {
        let server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel
                        )
                    }
                }
        } catch {
            let failure = RederiveError(.invalidArgument, "cannot serve metrics on \(address): \(Self.describe(error))")
            bound.resolve(.failure(failure))
            throw failure
        }
        let port = server.channel.localAddress?.port ?? address.port
        bound.resolve(.success(port))
        logger.info("serving metrics", metadata: ["address": "\(EndpointAddress.described(host: address.host, port: port))"])

        // A graceful shutdown cancels the accept loop and every connection's loop: their channels close.
        try await cancelWhenGracefulShutdown {
            do {
                try await acceptConnections(on: server)
            } catch is CancellationError {
                // Stopped: by the group's graceful shutdown, or the task's cancellation.
            }
        }
        logger.info("stopped serving metrics")
    }

    /// Serves each connection `server` accepts, a bounded number at once, until cancelled.
    private func acceptConnections(
        on server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    ) async throws {
        try await server.executeThenClose { connections in
            let active = ConnectionCount()
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in connections {
                    guard active.open(upTo: Self.maximumConnections) else {
                        connection.channel.close(promise: nil)
                        continue
                    }
                    group.addTask {
                        defer { active.close() }
                        await serve(connection)
                    }
                }
            }
        }
    }

    /// Answers one connection's requests in order until the client closes it or asks to.
    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await connection.executeThenClose { requests, responses in
                var head: HTTPRequestHead?
                for try await part in requests {
                    switch part {
                    case .head(let received):
                        head = received
                    case .body:
                        continue
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let response = EndpointResponse.answering(
                            method: request.method, uri: request.uri, health: health, registry: registry
                        )
                        try await write(response, to: request, on: responses)
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch {
            logger.debug("metrics connection ended", metadata: ["error": "\(error)"])
        }
    }

    private func write(
        _ response: EndpointResponse, to request: HTTPRequestHead,
        on responses: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(response.body.count)")
        if let allow = response.allow { headers.add(name: "Allow", value: allow) }
        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
        try await responses.write(.head(HTTPResponseHead(version: request.version, status: response.status, headers: headers)))
        if request.method != .HEAD && !response.body.isEmpty {
            try await responses.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
        }
        try await responses.write(.end(nil))
    }

    /// Why listening failed, in a few words: the system's reason, not the library's call.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? SocketAddressError, case .unknown(let host, _) = error {
            return "no such host \(host)"
        }
        return "\(error)"
    }
}

/// How many connections are being served, so that no more than a bound are at once.
private final class ConnectionCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more connection unless `limit` are open already; false when refused.
    func open(upTo limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Counts one connection closed.
    func close() {
        count.withLock { $0 -= 1 }
    }
}
#endif
