#if PostgreSQL
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO

/// Why a connection to the server could not be made or broke, in a person's words rather than
/// SwiftNIO's: `connection refused (is the server running?)`.
package enum ConnectionFailure {
    /// The reason `error` tells, when it is a failure of the connection itself rather than an answer
    /// of the server; nil otherwise.
    package static func reason(_ error: any Error) -> String? {
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .connectionError:
            return error.underlying.flatMap(reason(underlying:))
        case .serverClosedConnection:
            return "the server closed the connection"
        default:
            return nil
        }
    }

    /// Why a connection that was made, or was being made, ended with `error`, in one line: the
    /// connection's failure, or the server's words (a shutdown, a restart) told as the pool's are.
    package static func reason(lost error: any Error) -> String {
        if let reason = reason(error) { return reason }
        if let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] {
            return reason(text: state)
        }
        return reason(text: "\(error)")
    }

    /// The reason of a socket's or a connection attempt's error; nil for others, such as a failed
    /// TLS handshake.
    package static func reason(underlying error: any Error) -> String? {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return reason(underlying: first.error)
            }
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the host name does not resolve"
            }
            return nil
        }
        if let error = error as? IOError {
            return reason(errno: error.errnoCode)
        }
        if case .connectTimeout(let timeout)? = error as? ChannelError {
            return "timed out after \(timeout.nanoseconds / 1_000_000_000) s (is the server reachable?)"
        }
        return nil
    }

    /// The reason of a failure known only by its text, such as the connection pool logs it: the
    /// `errno` it names, a server that refuses connections while it stops or starts, else that the
    /// connection failed.
    package static func reason(text: String) -> String {
        if let range = text.range(of: "errno: "), let code = Int32(text[range.upperBound...].prefix { $0.isNumber }) {
            return reason(errno: code)
        }
        // SQLSTATE 57P03, cannot_connect_now; 57P01, admin_shutdown.
        if text.contains("57P03") || text.contains("57P01") {
            return "the server is shutting down or starting up"
        }
        if text.contains("connectTimeout") {
            return "timed out (is the server reachable?)"
        }
        return "the connection failed"
    }

    /// What a socket's `errno` means for a connection to a server.
    package static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused (is the server running?)"
        case EHOSTUNREACH: "no route to host (is the host up, and the network to it?)"
        case ENETUNREACH: "the network is unreachable (is the host's address right?)"
        case ETIMEDOUT: "timed out (is the server reachable?)"
        case ECONNRESET: "the connection was reset"
        case EPIPE: "the connection was closed"
        default: String(cString: strerror(code))
        }
    }
}
#endif
