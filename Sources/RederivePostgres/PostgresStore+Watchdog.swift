#if PostgreSQL
import Foundation
import PostgresNIO
import Synchronization
import Rederive

/// Transactions that end, whatever happens to their connection.
///
/// A statement sent just before a network cut waits for its answer for ever: nothing reaches the
/// client, neither the answer nor the server ending the session, until the link is back. A worker's
/// claims and heartbeats therefore run on a connection that is closed here when they have not ended
/// by a deadline, or, for claims, at once when their task is cancelled. Closed on this side, the
/// connection fails its statement with an error and is dropped from the pool, and nothing that comes
/// later from the server (a late answer, or the end of the session) reaches a statement still waiting.
extension PostgresStore {
    /// Runs `body` in one transaction, like ``transaction(_:snapshot:_:)``, closing its connection if it
    /// has not ended within `limit`, or when the task is cancelled and `closingOnCancel`. Throws
    /// ``ConnectionFault`` when the connection failed (closed here, reset, or its session ended by
    /// the server): the transaction was rolled back and may be tried again on another connection.
    /// A cancelled task gets a `CancellationError`.
    func watchedTransaction<T: Sendable>(
        _ verb: String, within limit: Duration, closingOnCancel: Bool, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let expired = WatchdogFlag()
        do {
            return try await client.withConnection { connection in
                let watchdog = Task {
                    do { try await Task.sleep(for: limit) } catch { return }
                    expired.fired.store(true, ordering: .relaxed)
                    _ = connection.close() as EventLoopFuture<Void>
                }
                defer { watchdog.cancel() }
                return try await withTaskCancellationHandler {
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        let value = try await body(connection)
                        try await connection.query("COMMIT", logger: logger)
                        return value
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                } onCancel: {
                    if closingOnCancel { _ = connection.close() as EventLoopFuture<Void> }
                }
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            if expired.fired.load(ordering: .relaxed) {
                throw ConnectionFault(RederiveError(
                    .database, "cannot \(verb) \(location): no answer from the server within \(Int(limit.secondsValue.rounded(.up))) s"
                ))
            }
            if ConnectionFault.isTransient(error) { throw ConnectionFault(describe(error, verb)) }
            throw describe(error, verb)
        }
    }
}

extension PostgresStore {
    /// How long the statements of a cancelled task may still wait for the server: a run asked to stop
    /// still commits what it derived and records how it ended, but not for ever on a connection that
    /// no longer answers.
    static let cancelledStatementLimit: Duration = .seconds(5)

    /// Runs `body`, closing `connection` if it has not ended `limit` after its task was cancelled.
    static func closing<T: Sendable>(
        _ connection: PostgresConnection, cancelledFor limit: Duration, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let timer = CancellationTimer()
        defer { timer.stop() }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            timer.start(after: limit) { _ = connection.close() as EventLoopFuture<Void> }
        }
    }
}

/// Runs an action some time after a task was cancelled, unless stopped first.
private final class CancellationTimer: Sendable {
    private let state = Mutex<(timer: Task<Void, Never>?, stopped: Bool)>((nil, false))

    func start(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        state.withLock { state in
            guard !state.stopped, state.timer == nil else { return }
            state.timer = Task {
                do { try await Task.sleep(for: delay) } catch { return }
                action()
            }
        }
    }

    func stop() {
        let timer = state.withLock { state in
            state.stopped = true
            return state.timer
        }
        timer?.cancel()
    }
}

/// Whether a watchdog closed its connection.
private final class WatchdogFlag: Sendable {
    let fired = Atomic<Bool>(false)
}

/// A connection that failed in the middle of a transaction, which was rolled back: the network
/// dropped it, the server ended its session, or it gave no answer in time. Trying again on another
/// connection may succeed.
struct ConnectionFault: Error, Sendable, CustomStringConvertible {
    /// The failure as told to people.
    let error: any Error

    init(_ error: any Error) {
        self.error = error
    }

    var description: String { "\(error)" }

    /// SQLSTATEs of a session the server ended, or of a connection that failed: the class
    /// `08` (connection exception), `57P01`-`57P03` (administrator command, crash, starting up) and
    /// `25P03` (idle in a transaction too long).
    private static let endedSessionStates: Set<String> = ["57P01", "57P02", "57P03", "25P03"]

    /// Whether `error`, thrown by PostgresNIO, says that the connection failed rather than the statement.
    static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return true
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || endedSessionStates.contains(state)
        default:
            return false
        }
    }
}
#endif
