#if MetricsEndpoint
import Rederive

/// Where the metrics endpoint listens: a host (name, IPv4, or IPv6 in brackets) and a port, 0 for one
/// the system chooses.
public struct EndpointAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host to listen on, without brackets: `127.0.0.1`, `localhost`, `::1`.
    public let host: String
    /// The port to listen on; 0 lets the system choose one.
    public let port: Int

    /// Reads `HOST:PORT` (`127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:0`), or throws one line saying what is wrong.
    public init(parsing text: String) throws(RederiveError) {
        func refuse(_ why: String) -> RederiveError {
            RederiveError(.invalidArgument, "metrics address \"\(text)\" is not HOST:PORT (such as 127.0.0.1:9464): \(why)")
        }
        guard let colon = text.lastIndex(of: ":") else { throw refuse("the port is missing") }
        var host = Substring(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            throw refuse("an IPv6 host goes in brackets, as [::1]:9464")
        }
        guard !host.isEmpty else { throw refuse("the host is missing") }
        guard !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "[" || $0 == "]" }) else {
            throw refuse("the host \"\(host)\" is not a host name or address")
        }
        guard !portText.isEmpty else { throw refuse("the port is missing") }
        guard portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), let port = Int(portText), port <= 65535 else {
            throw refuse("the port \"\(portText)\" is not a number from 0 to 65535")
        }
        self.host = String(host)
        self.port = port
    }

    /// The address as typed back: `127.0.0.1:9464`, `[::1]:9464`.
    public var description: String { Self.described(host: host, port: port) }

    /// `host:port`, with an IPv6 host in brackets.
    static func described(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
#endif
