#if MetricsEndpoint
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request on a connection of its own, with SwiftNIO's client codec: what the tests ask
/// the endpoint and Prometheus.
struct HTTPGet {
    /// A response's status and body.
    struct Response {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: String
    }

    /// Sends `method` for `uri` to `host:port` and reads the whole response.
    static func request(
        _ method: HTTPMethod = .GET, host: String = "127.0.0.1", port: Int, uri: String
    ) async throws -> Response {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "\(host):\(port)")
            headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)))
            try await outbound.write(.end(nil))
            var head: HTTPResponseHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                case .body(var chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    guard let head else { throw HTTPGetError.noHead }
                    return Response(status: head.status, headers: head.headers, body: String(buffer: body))
                }
            }
            throw HTTPGetError.noHead
        }
    }

    enum HTTPGetError: Error {
        case noHead
    }
}
#endif
