#if PostgreSQL
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Rederive
import RederiveSQL
import Synchronization

/// The store for a PostgreSQL database, derived by workers on many hosts at once.
///
/// ```swift
/// let store = try await PostgresStore(url: "postgres://rederive@db.internal/rooms?sslmode=verify-full")
/// defer { store.close() }
/// let summary = try await Runner(store: store, pipelines: [RoomScan.pipeline]).run()
/// ```
///
/// Every process that runs takes a lease of its own (``acquireLease(for:duration:)``) and claims
/// batches of stale records with `FOR UPDATE SKIP LOCKED`, marking them with its lease token. Commits
/// are fenced by that token and by each record's payload generation, so a worker whose lease expired
/// and was taken over commits nothing. What is kept, per record, is described in `PostgresSchema`.
public final class PostgresStore: Sendable {
    /// The database this store connects to.
    public let location: PostgresLocation
    let client: PostgresClient
    /// How a statement connects on its own while the pool's connection attempts fail (``OutageWatch/poolFailing``).
    let ownConnection: PostgresConnection.Configuration
    private let running: Task<Void, Never>
    let logger: Logger
    /// Says when the server went out of reach and when a statement reached it again.
    let outage: OutageWatch
    /// Where this process's claims of each pipeline stand, by lease token and pipeline name; none
    /// when the next claim starts from the first id.
    let claimPositions = Mutex<[ClaimPositionKey: ClaimPosition]>([:])
    /// The stale records this process's claims of each pipeline skipped, locked by another
    /// transaction, by lease token and pipeline name: its next claims look at them again.
    let skippedRecords = Mutex<[ClaimPositionKey: SkippedRecords]>([:])
    /// Tells watched transactions when their connection closes (``ClosedConnections``).
    let closedConnections = ClosedConnections()
    /// The claiming and committing statements, prepared once per connection.
    let statements = PreparedStatements()
    /// The tokens of leases this process gave up, after a commit whose outcome it cannot know.
    let abandonedLeases = Mutex<Set<String>>([])
    /// When this process's claims last reaped expired leases.
    let lastReaped = Mutex<ContinuousClock.Instant?>(nil)
    /// When this process's claims, by lease token and pipeline, last looked for records of leases that
    /// are gone; none when the next claim looks.
    let lastOrphanLook = Mutex<[ClaimPositionKey: ContinuousClock.Instant]>([:])
    /// Where the primary's write-ahead log stood when this process looked, oldest first: what a
    /// standby's replay position is timed against (``replicaLag()``).
    let walPositions = Mutex<[(at: ContinuousClock.Instant, position: Int64)]>([])
    /// The pipelines this process prepared (``prepare(_:)``).
    let preparedPipelines = Mutex<Set<PreparedPipeline>>([])
    /// What each pipeline's payload column holds, by table name.
    let payloadColumns = Mutex<[String: PayloadColumn]>([:])
    /// How many of the newest runs that changed values keep what they replaced, for rollback; older
    /// runs' are dropped when a run starts (`RollbackRules`).
    public let replacedValuesRunLimit: Int

    /// Connects to `url` and creates rederive's bookkeeping tables when they are missing.
    public convenience init(url: String, logger: Logger = PostgresStore.silent, replacedValuesRunLimit: Int = 20) async throws {
        try await self.init(location: PostgresLocation(url: url), logger: logger, replacedValuesRunLimit: replacedValuesRunLimit)
    }

    /// Connects to `location` and creates rederive's bookkeeping tables when they are missing.
    ///
    /// With `creatingBookkeeping` false, for commands that only read, nothing is created: a database
    /// without rederive's tables, or with an older version of them, is an error in one line.
    ///
    /// `logger` receives a warning when the server goes out of reach (the store retries until it is
    /// back) and an info line when it is reached again; the connection pool's own messages at debug.
    public init(
        location: PostgresLocation, logger: Logger = PostgresStore.silent, replacedValuesRunLimit: Int = 20,
        creatingBookkeeping: Bool = true
    ) async throws {
        self.location = location
        self.logger = logger
        self.replacedValuesRunLimit = max(1, replacedValuesRunLimit)
        // One connection first: a wrong database, role or password fails here, at once and with the
        // server's message, where the pool would retry for a minute and then say only that it gave up.
        var own = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user,
            password: location.password, database: location.database, tls: try Self.connectionTLS(location)
        )
        own.options.additionalStartupParameters = Self.sessionSettings
        own.options.connectTimeout = Self.ownConnectTimeout
        ownConnection = own
        do {
            let probe = try await PostgresConnection.connect(
                configuration: PostgresConnection.Configuration(
                    host: location.host, port: location.port, username: location.user,
                    password: location.password, database: location.database, tls: try Self.connectionTLS(location)
                ),
                id: 0, logger: logger
            )
            try? await probe.close()
        } catch {
            throw Self.openingError(error, location)
        }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user,
            password: location.password, database: location.database,
            tls: Self.poolTLS(location)
        )
        configuration.options.maximumConnections = 24
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = Self.sessionSettings
        let outage = OutageWatch(logger: logger, database: location.description)
        self.outage = outage
        let poolLogger = Logger(label: logger.label, factory: { _ in PoolLogHandler(watch: outage, forward: logger, location: location.description) })
        let client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
        self.client = client
        outage.probingPool { [weak client] in
            guard let client else { return .shutDown }
            do {
                try await client.withConnection { _ in }
                return .connected
            } catch {
                return ConnectionFailure.poolError(error) == .shutDown ? .shutDown : .failed
            }
        }
        running = Task { await client.run() }
        do {
            if creatingBookkeeping {
                try await PostgresSchema.createBookkeeping(self)
            } else {
                try await PostgresSchema.requireBookkeeping(self)
            }
        } catch {
            running.cancel()
            throw error
        }
    }

    deinit {
        running.cancel()
    }

    /// Closes the connections. The store cannot be used afterwards.
    public func close() {
        running.cancel()
    }

    /// A logger that drops everything: the default for a store whose caller logs nothing.
    public static let silent = Logger(label: "rederive.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// What every session of rederive's sets on the server. A worker cut off from the network in the
    /// middle of a transaction would hold its locks until the server noticed, two hours by TCP's
    /// defaults: the server ends such a session after 30 s idle in its transaction, finds a dead
    /// peer by keepalive within about 30 s, and gives up sending to one (a claim's payloads, say)
    /// after 30 s without an acknowledgement, so that its locks are released and its records taken
    /// over. A server whose system has no such settings says so in its log and goes on without.
    /// Prepared statements are planned for each call's values (``PreparedStatements``). No statement
    /// is compiled just in time: each of rederive's reads a few index entries per record, and the
    /// planner's estimates of a scan over every record (a count of the stale records, say) pass
    /// `jit_above_cost` from a few thousand records on, when compiling costs the server several
    /// times what running the statement does (at 40,000 records, 400 ms against 90).
    static let sessionSettings: [(String, String)] = [
        ("idle_in_transaction_session_timeout", "30s"),
        ("tcp_keepalives_idle", "15"),
        ("tcp_keepalives_interval", "5"),
        ("tcp_keepalives_count", "3"),
        ("tcp_user_timeout", "30000"),
        ("application_name", "rederive"),
        ("plan_cache_mode", "force_custom_plan"),
        ("jit", "off"),
    ]

    /// How long a statement's own connection may take to be made, TLS and authentication included,
    /// while the pool's fail (`ownConnection`). Short, since it is tried again within seconds: a
    /// connection begun while the network is cut waits for its next SYN once the link is back, and a
    /// long timeout would keep it waiting, even though the server is reachable again.
    static let ownConnectTimeout: TimeAmount = .seconds(3)

    /// The client side of `location`'s sslmode; nil when it is `disable`. `require` checks no
    /// certificate, as libpq's does unless a root certificate is given.
    private static func tlsConfiguration(_ location: PostgresLocation) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch location.tlsMode {
        case .disable:
            return nil
        case .allow, .prefer, .require:
            configuration.certificateVerification = .none
        case .verifyCA, .verifyFull:
            configuration.certificateVerification = location.tlsMode == .verifyFull ? .fullVerification : .noHostnameVerification
            if let root = location.rootCertificate {
                configuration.trustRoots = .file(root)
            }
        }
        return configuration
    }

    /// Whether TLS may be done without (`allow`, `prefer`) or not.
    private static func tlsOptional(_ location: PostgresLocation) -> Bool {
        location.tlsMode == .allow || location.tlsMode == .prefer
    }

    private static func poolTLS(_ location: PostgresLocation) -> PostgresClient.Configuration.TLS {
        guard let configuration = tlsConfiguration(location) else { return .disable }
        return tlsOptional(location) ? .prefer(configuration) : .require(configuration)
    }

    static func connectionTLS(_ location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        guard let configuration = tlsConfiguration(location) else { return .disable }
        let context = try NIOSSLContext(configuration: configuration)
        return tlsOptional(location) ? .prefer(context) : .require(context)
    }

    /// Why the first connection to `location` failed, in one line: where it could not connect and
    /// why, that the server offers no TLS where `sslmode` insists on it, or what the server answered.
    private static func openingError(_ error: any Error, _ location: PostgresLocation) -> RederiveError {
        if let reason = ConnectionFailure.reason(error) {
            return RederiveError(.database, "cannot connect to \(location.host):\(location.port): \(reason)")
        }
        if let error = error as? PSQLError, error.code == .sslUnsupported {
            return RederiveError(
                .database,
                "cannot open \(location): the server does not offer TLS, and sslmode=\(location.tlsMode.rawValue) requires it "
                    + "(sslmode=prefer uses TLS only where the server offers it; sslmode is one of "
                    + "\(PostgresLocation.TLSMode.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        return RederiveError(.database, "cannot open \(location)", underlying: PostgresProblem(error))
    }

    /// Runs `body` on a pooled connection; a database problem names the database (never its
    /// password) and what was attempted, and rederive's own errors pass through.
    ///
    /// A cancelled task's statements run too (``watched(within:cancelled:_:)``): a run asked to stop
    /// still commits, records its end and releases its lease. Once cancelled, it waits for them
    /// ``cancelledStatementLimit`` at most.
    func withConnection<T: Sendable>(_ verb: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        switch await watched(within: nil, cancelled: .waitAtMost(Self.cancelledStatementLimit), body) {
        case .success(let value):
            return value
        case .failure(let expired as WatchExpired):
            throw noAnswer(verb, expired)
        case .failure(let error):
            throw lostConnection(verb, error) ?? describe(error, verb)
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// `snapshot` makes it a read-only transaction whose statements all see one snapshot.
    func transaction<T: Sendable>(
        _ verb: String, snapshot: Bool = false, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        return try await withConnection(verb) { connection in
            try await Self.inTransaction(
                connection, begin: snapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY" : "BEGIN", logger: logger, body
            )
        }
    }

    /// Runs `body` between `begin` and COMMIT on `connection`, rolling back when it throws.
    /// `committing`, when given, is marked just before COMMIT is sent: a failure before that mark
    /// rolled the transaction back; one after it left its outcome to the server.
    static func inTransaction<T: Sendable>(
        _ connection: PostgresConnection, begin: PostgresQuery = "BEGIN", logger: Logger, committing: CommitSent? = nil,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await connection.query(begin, logger: logger)
        do {
            let value = try await body(connection)
            committing?.mark()
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            await rollBack(connection, after: error, logger: logger)
            throw error
        }
    }

    /// Rolls back the transaction `error` ended on `connection`, unless the connection is gone: a
    /// closed connection's transaction ended with its session, and a statement sent to it would
    /// never end (PostgresNIO answers only the statements its closed connection still held, and
    /// drops those written to it later).
    static func rollBack(_ connection: PostgresConnection, after error: any Error, logger: Logger) async {
        guard !connection.isClosed, !ConnectionFault.isTransient(error) else { return }
        _ = try? await connection.query("ROLLBACK", logger: logger)
    }

    /// `error` in a person's words, naming what was attempted where, classified at the source: a
    /// failed connection or a session the server ended (a reset, a refusal, a terminated session, no
    /// slot free), a statement timeout, and what the server rolled back for the moment (see
    /// ``rolledBackForTheMoment(_:)``) are transient and waited out under the run's outage limit; a
    /// missing database or a read-only server refuses the work for good
    /// (`RederiveError/Code-swift.enum/databaseRefused`).
    func describe(_ error: any Error, _ verb: String) -> any Error {
        switch error {
        case let error as RederiveError:
            return error
        case is CancellationError:
            return error
        default:
            if let state = (error as? PSQLError)?.serverInfo?[.sqlState],
               let reason = ConnectionFailure.reason(sqlState: state, message: (error as? PSQLError)?.serverInfo?[.message]) {
                let refused = ConnectionFailure.refuses(sqlState: state)
                return RederiveError(refused ? .databaseRefused : .database, "cannot \(verb) \(location): \(reason)", transient: !refused)
            }
            if let reason = ConnectionFailure.reason(pool: error) {
                // The pool stops trying for a while after failed connections: an outage, waited out.
                return RederiveError(.database, "cannot \(verb) \(location): \(reason)", transient: true)
            }
            return RederiveError(
                .database, "cannot \(verb) \(location)", underlying: PostgresProblem(error),
                transient: Self.rolledBackForTheMoment(error) || ConnectionFault.isTransient(error)
            )
        }
    }

    /// SQLSTATEs of a transaction the server rolled back for what other transactions were doing at the
    /// moment, which the same transaction may pass when tried again: `40001` (serialization failure,
    /// under REPEATABLE READ or SERIALIZABLE), `40P01` (deadlock detected) and `55P03` (lock not
    /// available: a `lock_timeout` or `NOWAIT` of the role or the database).
    static let momentaryStates: Set<String> = ["40001", "40P01", "55P03"]

    /// Whether `error` is the server's answer that the transaction was rolled back for the moment.
    static func rolledBackForTheMoment(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return momentaryStates.contains(state)
    }
}

/// A PostgresNIO error told in one line: the server's message and SQLSTATE, or what went wrong with
/// the connection. PostgresNIO's own description says nothing, and its debug description may show
/// statements; neither ever holds the password, and neither is used.
struct PostgresProblem: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        guard let error = error as? PSQLError else {
            description = ConnectionFailure.reason(pool: error) ?? "\(error)"
            return
        }
        if let info = error.serverInfo, let message = info[.message] {
            var text = message
            if let detail = info[.detail] { text += " (\(detail))" }
            if let state = info[.sqlState] { text += " [SQLSTATE \(state)]" }
            description = text
        } else if let reason = ConnectionFailure.reason(error) {
            description = reason
        } else if error.code == .authMechanismRequiresPassword {
            description = "the server asks for a password: set $PGPASSWORD, or add the database to ~/.pgpass (host:port:database:user:password)"
        } else if let underlying = error.underlying {
            description = Self.tls(underlying) ?? "\(error.code): \(underlying)"
        } else {
            description = "\(error.code)"
        }
    }
}

extension PostgresProblem {
    /// A TLS handshake's failure in the words of `sslmode`, rather than BoringSSL's.
    static func tls(_ error: any Error) -> String? {
        let text = "\(error)"
        if text.contains("failedToValidateHostname") {
            return "TLS: the server's certificate is not for the host connected to (sslmode=verify-full checks the host name; verify-ca does not)"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "TLS: the server's certificate is not signed by a trusted authority (sslrootcert, or the system's roots)"
        }
        return nil
    }
}

/// Which lease's claims of which pipeline a claim position belongs to.
struct ClaimPositionKey: Hashable, Sendable {
    let token: String
    let pipeline: String
    /// Each lane of stale records has a position of its own.
    var lane: StaleLane = .all
}

/// Which records a process's next claim of a pipeline looks at.
enum ClaimPosition: Sendable {
    /// Those after the last id it claimed (from the first when nil), in id order.
    case after(Int64?)
    /// Only those other workers held when a pass through the ids found nothing free: while they
    /// derive, these are the only records that can still come free, by a lease that expired or a
    /// commit that gave them back.
    case watching([Int64])
}

extension AsyncSequence where Element == PostgresRow {
    /// Every row, decoded by `decode`.
    func collect<T>(_ decode: (PostgresRow) throws -> T) async throws -> [T] {
        var values: [T] = []
        for try await row in self {
            values.append(try decode(row))
        }
        return values
    }
}

extension PostgresConnection {
    /// Runs a built statement.
    @discardableResult
    func run(_ statement: SQLStatement, logger: Logger) async throws -> PostgresRowSequence {
        try await query(statement.query, logger: logger)
    }

    /// The one integer a statement returns (a count), 0 when it returns no row.
    func count(_ statement: SQLStatement, logger: Logger) async throws -> Int {
        var total = 0
        for try await row in try await run(statement, logger: logger) {
            total = Int(try row.decode(Int64?.self) ?? 0)
        }
        return total
    }
}
#endif
