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
    /// Runs `body` in one transaction, like ``transaction(_:snapshot:_:)``, giving up on it if it has
    /// not ended within `limit`, or when the task is cancelled and `closingOnCancel`: its connection is
    /// then closed, and the transaction left to end on its own (a connection closed under a waiting
    /// statement does not always fail that statement). Throws ``ConnectionFault`` when the connection
    /// failed (given up on, reset, or its session ended by the server): the transaction was rolled
    /// back, or never committed, and may be tried again on another connection. A cancelled task gets
    /// a `CancellationError`.
    func watchedTransaction<T: Sendable>(
        _ verb: String, within limit: Duration, closingOnCancel: Bool,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let watch = TransactionWatch<T>()
        let client = self.client
        let logger = self.logger
        let work = Task {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await client.withConnection { connection in
                    watch.connected(connection)
                    return try await Self.inTransaction(connection, logger: logger, body)
                })
            } catch {
                outcome = .failure(error)
            }
            watch.end(outcome)
        }
        let timer = Task {
            do { try await Task.sleep(for: limit) } catch { return }
            watch.end(.failure(TransactionWatch<T>.Expired()))
        }
        defer { timer.cancel() }
        let outcome = await withTaskCancellationHandler {
            await watch.outcome()
        } onCancel: {
            if closingOnCancel {
                watch.end(.failure(CancellationError()))
            } else {
                work.cancel()
            }
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error):
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            if error is TransactionWatch<T>.Expired {
                throw ConnectionFault(RederiveError(
                    .database, "cannot \(verb) \(location): no answer from the server within \(Int(limit.secondsValue.rounded(.up))) s"
                ))
            }
            if ConnectionFault.isTransient(error) { throw ConnectionFault(describe(error, verb)) }
            throw describe(error, verb)
        }
    }
}

/// How a watched transaction ended, told once: by the transaction, or by its deadline or
/// cancellation, which close its connection.
private final class TransactionWatch<T: Sendable>: Sendable {
    struct Expired: Error {}

    private struct State {
        var connection: PostgresConnection?
        var outcome: Result<T, any Error>?
        var waiting: CheckedContinuation<Result<T, any Error>, Never>?
    }

    private let state = Mutex<State>(State())

    func connected(_ connection: PostgresConnection) {
        let ended = state.withLock { state in
            state.connection = connection
            return state.outcome != nil
        }
        if ended { _ = connection.close() as EventLoopFuture<Void> }
    }

    /// Ends the watch with `outcome`, unless it has ended already; an outcome other than the
    /// transaction's closes its connection.
    func end(_ outcome: Result<T, any Error>) {
        let (waiting, connection) = state.withLock { state -> (CheckedContinuation<Result<T, any Error>, Never>?, PostgresConnection?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            defer { state.waiting = nil }
            return (state.waiting, state.connection)
        }
        waiting?.resume(returning: outcome)
        if case .failure(let error) = outcome, error is Expired || error is CancellationError {
            _ = connection?.close() as EventLoopFuture<Void>?
        }
    }

    func outcome() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Result<T, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiting = continuation
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
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
