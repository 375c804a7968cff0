#if PostgreSQL
import PostgresNIO
import Synchronization
import Rederive

/// Transactions that end, whatever happens to their connection.
///
/// A statement sent just before a network cut waits for its answer for ever: nothing reaches the
/// client, neither the answer nor the server ending the session, until the link is back. A worker's
/// claims, heartbeats and commits therefore run on a connection that is closed here when they have
/// not ended by a deadline, or once their task is cancelled (at once for claims and heartbeats, a
/// few seconds later for commits). Closed on this side, the connection fails its statement with an
/// error and is dropped from the pool, and nothing that comes later from the server (a late answer,
/// or the end of the session) reaches a statement still waiting.
extension PostgresStore {
    /// What a watched transaction does when its task is cancelled.
    enum CancelledTransaction: Sendable {
        /// Gives up on it at once: a claim or a heartbeat is of no use to a run that stops.
        case giveUp
        /// Lets it go on for at most this long: a run asked to stop still commits what it derived.
        case waitAtMost(Duration)
    }

    /// Runs `body` in one transaction, like ``transaction(_:snapshot:_:)``, giving up on it if it has
    /// not ended within `limit`, or as `cancelled` says once the task is cancelled (see
    /// ``watched(within:cancelled:_:)``).
    ///
    /// Throws ``ConnectionFault`` when the connection failed (given up on, reset, or its session
    /// ended by the server): the transaction was rolled back, or never committed, unless the failure
    /// came after its COMMIT was sent, which only the server knows. A task cancelled gets a
    /// `CancellationError` when `cancelled` gives up at once; one that waits gets the outcome.
    /// `committing`, when given, is marked once COMMIT is sent (see ``inTransaction(_:begin:logger:committing:_:)``).
    func watchedTransaction<T: Sendable>(
        _ verb: String, within limit: Duration, cancelled: CancelledTransaction, committing: CommitSent? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        let outcome = await watched(within: limit, cancelled: cancelled) { connection in
            try await Self.inTransaction(connection, logger: logger, committing: committing, body)
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error):
            // Given up on for the cancelled task: its caller stops. A transaction the task waited for
            // once cancelled ends as it ended, so that its caller knows what became of it.
            if error is CancellationError { throw CancellationError() }
            if case .giveUp = cancelled, Task.isCancelled { throw CancellationError() }
            if let expired = error as? WatchExpired {
                throw ConnectionFault(noAnswer(verb, expired))
            }
            if let lost = lostConnection(verb, error) { throw ConnectionFault(lost) }
            if ConnectionFault.isTransient(error) { throw ConnectionFault(describe(error, verb)) }
            throw describe(error, verb)
        }
    }

    /// The watch's own end of a statement, a connection closed under it or a pool that cannot connect,
    /// as a transient error naming `verb`; nil for any other failure.
    func lostConnection(_ verb: String, _ error: any Error) -> RederiveError? {
        let reason: String
        switch error {
        case is ClosedUnderStatement: reason = ClosedUnderStatement.reason
        case let failed as PoolFailed: reason = failed.reason
        default: return nil
        }
        return RederiveError(.database, "cannot \(verb) \(location): \(reason)", transient: true)
    }

    /// That the server did not answer `verb` in time, in one line.
    func noAnswer(_ verb: String, _ expired: WatchExpired) -> RederiveError {
        let waited = "\(Int(expired.after.secondsValue.rounded(.up))) s"
        return RederiveError(
            .database, "cannot \(verb) \(location): no answer from the server within \(waited)\(expired.stopping ? " of being asked to stop" : "")"
        )
    }

    /// Runs `body` on a pooled connection, in a task of its own, which a cancelled caller does not
    /// cancel: PostgresNIO's pool gives a cancelled task no connection, and its rows stop coming
    /// to one, yet a run asked to stop must still commit what it derived, record how it ended and
    /// release its lease. Gives up on `body` if it has not ended within `limit` (when given), or as
    /// `cancelled` says once the caller is cancelled: its connection is then closed, which fails the
    /// statement waiting on it and drops the connection from the pool, and its task is cancelled, so
    /// that it never waits for a connection it no longer needs: nothing given up on holds a
    /// connection of the pool.
    ///
    /// Returns what `body` returned or threw; ``WatchExpired`` when given up on for time, a
    /// `CancellationError` when given up on for the caller's cancellation.
    func watched<T: Sendable>(
        within limit: Duration?, cancelled: CancelledTransaction,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async -> Result<T, any Error> {
        let begun = ContinuousClock.now
        let watch = TransactionWatch<T>()
        let client = self.client
        let outage = self.outage
        let closedConnections = self.closedConnections
        // While the pool's connection attempts fail, it hands out no connection until its next
        // attempt, up to a minute away however soon the server is back: connect on our own.
        let own = outage.poolFailing ? ownConnection : nil
        let logger = self.logger
        let work = Task {
            let outcome: Result<T, any Error>
            do {
                let run: @Sendable (PostgresConnection) async throws -> T = { connection in
                    guard watch.connected(connection) else {
                        // Given up on before it began: closed, and given back to the pool only once
                        // the pool knows it is, lest it hand a closed connection to the next transaction.
                        try? await connection.close()
                        throw CancellationError()
                    }
                    closedConnections.watch(connection) { watch.connectionClosed() }
                    let attempt = ContinuousClock.now
                    let result: Result<T, any Error>
                    do {
                        result = .success(try await body(connection))
                        outage.reached(since: attempt)
                    } catch {
                        result = .failure(error)
                    }
                    closedConnections.unwatch(connection)
                    // Back in the pool, the connection may serve another transaction: from now on it is
                    // never closed by this watch, and a connection it closed goes back closed.
                    if watch.disconnected() { try? await connection.close() }
                    return try result.get()
                }
                if let own {
                    outcome = .success(try await Self.withOwnConnection(own, logger: logger, run))
                } else {
                    outcome = .success(try await client.withConnection(run))
                }
            } catch {
                outcome = .failure(error)
            }
            watch.end(outcome)
        }
        watch.giveUp = { work.cancel() }
        let timer = limit.map { limit in
            Task {
                do { try await Task.sleep(for: limit) } catch { return }
                watch.end(.failure(WatchExpired(after: limit, stopping: false)))
            }
        }
        // A server that refuses connections for good (a missing database) ends the wait for one at once.
        let refusal = outage.onRefusal { error in watch.end(.failure(error)) }
        // The pool failing to connect ends the wait for one of its connections: tried again, the
        // statement connects on its own.
        let poolWait = own == nil ? outage.onPoolFailure { reason in watch.endUnconnected(PoolFailed(reason: reason)) } : nil
        let cancellation = CancellationTimer()
        defer {
            timer?.cancel()
            cancellation.stop()
            outage.forget(refusal)
            outage.forgetPoolWait(poolWait)
        }
        let outcome = await withTaskCancellationHandler {
            await watch.outcome()
        } onCancel: {
            switch cancelled {
            case .giveUp:
                watch.end(.failure(CancellationError()))
            case .waitAtMost(let grace):
                cancellation.start(after: grace) { watch.end(.failure(WatchExpired(after: grace, stopping: true))) }
            }
        }
        if case .failure(let error) = outcome, let reason = Self.outageReason(error) {
            outage.connectionFailed(reason, since: begun)
        }
        return outcome
    }

    /// Runs `body` on a connection of its own, made with `configuration` and closed once done.
    private static func withOwnConnection<T: Sendable>(
        _ configuration: PostgresConnection.Configuration, logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: ownConnectionIDs.add(1, ordering: .relaxed).newValue, logger: logger)
        do {
            let value = try await body(connection)
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Why a watched statement's failure says the server is out of reach: its connection failed, or
    /// the server gave no answer by its deadline; nil for other failures, and for a session the
    /// server ended for being idle, which the pool replaces at once.
    static func outageReason(_ error: any Error) -> String? {
        if let expired = error as? WatchExpired {
            return expired.stopping ? nil : "no answer from the server within \(Int(expired.after.secondsValue.rounded(.up))) s"
        }
        if error is ClosedUnderStatement { return ClosedUnderStatement.reason }
        // The pool's failure was told when it happened.
        if error is PoolFailed { return nil }
        guard ConnectionFault.isTransient(error) else { return nil }
        if let state = ConnectionFailure.sqlState(of: error), ConnectionFailure.endedIdle(sqlState: state) { return nil }
        return ConnectionFailure.reason(lost: error)
    }
}

/// A watched statement given up on for time: past its deadline, or past the grace of a task asked
/// to stop.
struct WatchExpired: Error {
    /// How long it was waited for.
    let after: Duration
    /// Whether the task was asked to stop: the wait was its grace, not the statement's deadline.
    let stopping: Bool
}

/// A watched statement given up on because its connection closed under it without failing it
/// (see ``ClosedConnections``).
struct ClosedUnderStatement: Error {
    static let reason = "the connection was closed"

    /// How long a statement whose connection closed may take to fail with its own reason (a reset,
    /// the server's words) before it is given up on.
    static let grace: Duration = .seconds(1)
}

/// A watched statement that waited for one of the pool's connections when the pool failed to make
/// one, for `reason`: it is tried again on a connection of its own.
struct PoolFailed: Error {
    let reason: String
}

/// The ids of the connections statements make on their own, apart from the pool's.
private let ownConnectionIDs = Atomic<Int>(1_000_000_000)

/// How a watched transaction ended, told once: by the transaction, or by its deadline or
/// cancellation, which give it up: close its connection and cancel its task.
private final class TransactionWatch<T: Sendable>: Sendable {
    private struct State {
        var connection: PostgresConnection?
        var outcome: Result<T, any Error>?
        var waiting: CheckedContinuation<Result<T, any Error>, Never>?
        var giveUp: (@Sendable () -> Void)?
        /// Whether giving up closed the connection.
        var closed = false
    }

    private let state = Mutex<State>(State())

    /// What else giving up does: cancel the transaction's task.
    var giveUp: (@Sendable () -> Void)? {
        get { state.withLock { $0.giveUp } }
        set {
            let ended = state.withLock { state in
                state.giveUp = newValue
                return state.outcome != nil
            }
            if ended { newValue?() }
        }
    }

    /// Keeps the transaction's connection, to close it when the transaction is given up on; false
    /// when it was given up on already (the caller closes it then).
    func connected(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return false }
            state.connection = connection
            return true
        }
    }

    /// Forgets the connection, once the transaction is done with it; whether giving up closed it.
    func disconnected() -> Bool {
        state.withLock { state in
            state.connection = nil
            return state.closed
        }
    }

    /// Ends the watch with `outcome`, unless it has ended already (or, `unlessConnected`, the
    /// transaction has its connection); an outcome other than the transaction's gives the
    /// transaction up.
    func end(_ outcome: Result<T, any Error>, unlessConnected: Bool = false) {
        let givingUp = if case .failure(let error) = outcome,
            error is WatchExpired || error is ClosedUnderStatement || error is PoolFailed || error is CancellationError
                || (error as? RederiveError)?.code == .databaseRefused { true } else { false }
        let (waiting, connection, giveUp) = state.withLock { state -> (CheckedContinuation<Result<T, any Error>, Never>?, PostgresConnection?, (@Sendable () -> Void)?) in
            guard state.outcome == nil, !(unlessConnected && state.connection != nil) else { return (nil, nil, nil) }
            state.outcome = outcome
            state.closed = givingUp && state.connection != nil
            defer { state.waiting = nil }
            return (state.waiting, state.connection, state.giveUp)
        }
        waiting?.resume(returning: outcome)
        if givingUp {
            _ = connection?.close() as EventLoopFuture<Void>?
            giveUp?()
        }
    }

    /// Ends the watch with `error` unless the transaction has a connection already.
    func endUnconnected(_ error: any Error) {
        end(.failure(error), unlessConnected: true)
    }

    /// The transaction's connection closed: unless its statement fails by itself within
    /// ``ClosedUnderStatement/grace``, with the reason it has, it is given up on.
    func connectionClosed() {
        guard state.withLock({ $0.outcome == nil }) else { return }
        Task {
            try? await Task.sleep(for: ClosedUnderStatement.grace)
            end(.failure(ClosedUnderStatement()))
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

    /// The failure as the sign of an outage, which the run waits out (`RederiveError/isOutage`):
    /// for a transaction that was rolled back, or never committed.
    var outage: RederiveError {
        RederiveError(outage: error as? RederiveError ?? RederiveError(.database, "\(error)"))
    }

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
