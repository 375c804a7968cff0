#if PostgreSQL
import PostgresNIO
import Synchronization

/// Tells the transaction a pooled connection serves when that connection closes.
///
/// A statement sent to a connection that has already closed never ends: PostgresNIO fails the
/// statements its connection holds when the connection closes, but drops those written to it
/// afterwards without an answer. A statement of a transaction whose connection closed (the pool
/// handed out a connection the server had just ended, or a statement followed the failure of
/// another) would then wait for its deadline, told as no answer. Told of the close, the watch gives
/// the statement a moment to fail with its own reason, then ends it as a closed connection.
///
/// Each connection's close is observed once, however many transactions it serves; a closed
/// connection is forgotten.
final class ClosedConnections: Sendable {
    private let watchers = Mutex<[PostgresConnection.ID: (@Sendable () -> Void)?]>([:])

    /// Runs `closed` when `connection` closes while it is watched, until ``unwatch(_:)``; at once
    /// when it has closed already.
    func watch(_ connection: PostgresConnection, _ closed: @escaping @Sendable () -> Void) {
        let id = connection.id
        let observed = watchers.withLock { watchers in
            defer { watchers[id] = .some(closed) }
            return watchers.keys.contains(id)
        }
        guard !observed else { return }
        connection.closeFuture.whenComplete { [self] _ in
            let closed = watchers.withLock { $0.removeValue(forKey: id) ?? nil }
            closed?()
        }
    }

    /// Stops telling of `connection`'s close: its transaction has ended.
    func unwatch(_ connection: PostgresConnection) {
        watchers.withLock { watchers in
            if watchers.keys.contains(connection.id) { watchers[connection.id] = .some(nil) }
        }
    }
}
#endif
