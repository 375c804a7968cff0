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
        // The server's words first: a session it ended says why before the connection closes.
        if let state = sqlState(of: error), let reason = reason(sqlState: state, message: "\(String(reflecting: error))") {
            return reason
        }
        if let reason = reason(error) { return reason }
        if let state = sqlState(of: error) { return reason(text: state) }
        return reason(text: "\(error)")
    }

    /// What the server's `state` says of the session or the server rather than of a statement, in one
    /// line of its own; nil for other states. `message`, the server's words, tells a statement timeout
    /// from a cancel, which share a state.
    ///
    /// 57P01 is what both `pg_terminate_backend` and a fast or smart shutdown send: the session
    /// cannot tell which, and says both; a server that then refuses connections tells the rest.
    package static func reason(sqlState state: String, message: String? = nil) -> String? {
        switch state {
        case "57P01":
            "the session was terminated by an administrator (pg_terminate_backend, or the server shutting down)"
        case "57P02":
            "the server ended every session after a crash or an immediate shutdown"
        case "57P03":
            "the server is shutting down or starting up"
        case "57P05":
            "the session was idle longer than the server's idle_session_timeout"
        case "25P03":
            "the session was idle in its transaction longer than the server's idle_in_transaction_session_timeout"
        case "53300":
            "the server has no connection slot free (max_connections, or the role's connection limit, is reached)"
        case "57014" where message?.contains("user request") == true:
            "a statement was cancelled on the server (pg_cancel_backend)"
        case "57014":
            "a statement ran longer than the server's statement_timeout"
        case "25006":
            "the server is read-only (a standby, or default_transaction_read_only is on); rederive writes, and needs the primary"
        case "3D000":
            "the database does not exist (was it dropped or renamed?)"
        default:
            nil
        }
    }

    /// Whether the server's `state` refuses the work however long one waits: a missing database, or
    /// a server that takes no writes. Retrying such a state only repeats it.
    package static func refuses(sqlState state: String) -> Bool {
        state == "3D000" || state == "25006"
    }

    /// Whether the server's `state` ended an idle session for being idle: the pool or the listener
    /// connects again, and nothing was out of reach.
    package static func endedIdle(sqlState state: String) -> Bool {
        state == "57P05"
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
        if let state = sqlState(in: text), let reason = reason(sqlState: state, message: text) {
            return reason
        }
        if text.contains("connectTimeout") {
            return "timed out (is the server reachable?)"
        }
        return "the connection failed"
    }

    /// The SQLSTATE of the server's answer `error` carries, or that closed its connection.
    package static func sqlState(of error: any Error) -> String? {
        guard let error = error as? PSQLError else { return nil }
        return error.serverInfo?[.sqlState] ?? error.underlying.flatMap(sqlState(of:))
    }

    /// The SQLSTATE a PSQLError's text names (`sqlState: 3D000`), if any.
    package static func sqlState(in text: String) -> String? {
        guard let range = text.range(of: "sqlState: ") else { return nil }
        let state = text[range.upperBound...].prefix { $0.isLetter || $0.isNumber }
        return state.count == 5 ? String(state) : nil
    }

    /// What the connection pool's own errors say.
    package enum PoolError {
        /// It gave up on new connections for a while (its circuit breaker).
        case circuitBreakerTripped
        /// It was shut down: the store was closed.
        case shutDown
        /// A request for a connection was cancelled.
        case requestCancelled
    }

    /// Which of the connection pool's own errors `error` is; nil for other errors. Its type is the
    /// pool module's, known here by its words only.
    package static func poolError(_ error: any Error) -> PoolError? {
        let text = "\(error)"
        guard text.hasPrefix("ConnectionPoolError") else { return nil }
        if text.contains("connectionCreationCircuitBreakerTripped") { return .circuitBreakerTripped }
        if text.contains("poolShutdown") { return .shutDown }
        return .requestCancelled
    }

    /// What the connection pool's own error `error` says, in a person's words; nil for other errors.
    package static func reason(pool error: any Error) -> String? {
        switch poolError(error) {
        case .circuitBreakerTripped: "no connection to the server could be made for a while (is it running and reachable?)"
        case .shutDown: "the store's connections were closed"
        case .requestCancelled: "the request for a connection was cancelled"
        case nil: nil
        }
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
