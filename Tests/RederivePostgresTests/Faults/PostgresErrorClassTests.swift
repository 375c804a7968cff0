#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive
@testable import RederivePostgres
import RederivePostgresTestSupport
import Testing

/// Each way the server fails a statement or a connection, caused for real, has a one-line reason of
/// its own, classified where PostgresNIO's error is turned into rederive's: waited out (transient)
/// or refused for good. None reads "the connection failed" or "no answer".
@Suite("PostgreSQL error classes", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresErrorClassTests {
    @Test func aStatementTimeoutIsToldAsSuchAndWaitedOut() async throws {
        let store = try await PostgresStore(url: try PostgresServer.shared().makeDatabase())
        defer { store.close() }
        let error = try await Self.error {
            try await store.transaction("claim records in") { connection in
                try await connection.query("SET LOCAL statement_timeout = '50ms'", logger: store.logger)
                for try await _ in try await connection.query("SELECT pg_sleep(5)", logger: store.logger) {}
            }
        }
        #expect(error.message == "cannot claim records in \(store.location): a statement ran longer than the server's statement_timeout")
        #expect(error.isTransient)
    }

    @Test func aSessionTerminatedByAnAdministratorIsToldAsSuchAndWaitedOut() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        let error = try await Self.error {
            try await store.withConnection("claim records in") { connection in
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: store.logger).collect { try $0.decode(Int32.self) }.first ?? 0
                // From another session, while this one waits on a statement: pg_terminate_backend.
                let terminating = Task.detached {
                    try await Task.sleep(for: .milliseconds(300))
                    try server.psql(PostgresServer.databaseName(in: url), "SELECT pg_terminate_backend(\(pid))")
                }
                defer { terminating.cancel() }
                for try await _ in try await connection.query("SELECT pg_sleep(10)", logger: store.logger) {}
            }
        }
        #expect(error.message == """
            cannot claim records in \(store.location): \
            the session was terminated by an administrator (pg_terminate_backend, or the server shutting down)
            """)
        #expect(error.isTransient)
    }

    @Test func aReadOnlyServerRefusesTheWorkForGood() async throws {
        let store = try await PostgresStore(url: try PostgresServer.shared().makeDatabase())
        defer { store.close() }
        let error = try await Self.error {
            try await store.transaction("take a lease on") { connection in
                try await connection.query("SET TRANSACTION READ ONLY", logger: store.logger)
                try await connection.query("CREATE TABLE written (x int)", logger: store.logger)
            }
        }
        #expect(error.message == """
            cannot take a lease on \(store.location): \
            the server is read-only (a standby, or default_transaction_read_only is on); rederive writes, and needs the primary
            """)
        #expect(!error.isTransient)
        #expect(error.code.rawValue == "databaseRefused")
    }

    @Test func aMissingDatabaseAndFullConnectionSlotsEachHaveTheirReason() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let role = "limited_\(UUID().uuidString.prefix(8).lowercased())"
        try server.psql(database, "CREATE ROLE \(role) LOGIN CONNECTION LIMIT 1")
        defer { _ = try? server.psql(database, "DROP ROLE \(role)") }
        let logger = Logger(label: "test")
        func connect(_ user: String, _ database: String) async throws -> PostgresConnection {
            try await PostgresConnection.connect(
                configuration: PostgresConnection.Configuration(
                    host: "127.0.0.1", port: server.port, username: user, password: nil, database: database, tls: .disable
                ),
                id: 0, logger: logger
            )
        }
        let held = try await connect(role, database)
        defer { Task { try? await held.close() } }
        let full = await Self.failure { _ = try await connect(role, database) }
        #expect(ConnectionFailure.reason(lost: full) == "the server has no connection slot free (max_connections, or the role's connection limit, is reached)")
        let missing = await Self.failure { _ = try await connect("postgres", "\(database)_renamed") }
        #expect(ConnectionFailure.reason(lost: missing) == "the database does not exist (was it dropped or renamed?)")
        // As the connection pool logs it: as text only.
        #expect(ConnectionFailure.reason(text: String(reflecting: missing)) == "the database does not exist (was it dropped or renamed?)")
    }

    /// The rederive error `body` throws.
    static func error(_ body: () async throws -> Void) async throws -> RederiveError {
        let thrown = await failure(body)
        return try #require(thrown as? RederiveError, "\(String(reflecting: thrown))")
    }

    /// What `body` throws; a failed expectation when it throws nothing.
    static func failure(_ body: () async throws -> Void) async -> any Error {
        do {
            try await body()
        } catch {
            return error
        }
        Issue.record("nothing was thrown")
        return CancellationError()
    }
}
#endif
