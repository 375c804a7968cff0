#if PostgreSQL
import PostgresNIO
@testable import RederivePostgres
import RederivePostgresTestSupport
import Testing

/// The statements of claims and commits are prepared once per connection and executed by name.
@Suite("prepared statements on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresPreparedStatementTests {
    @Test func aStatementIsPreparedOnceAndRunByNameWithItsParameters() async throws {
        let server = try PostgresServer.shared()
        let store = try await PostgresStore(url: try server.makeDatabase())
        defer { store.close() }
        let logger = store.logger
        try await store.withConnection("test") { connection in
            func add(_ left: Int64, _ right: [Int64]) async throws -> [Int64] {
                var statement = SQLStatement()
                statement.sql = "SELECT \(statement.bind(left)) + x FROM unnest(\(statement.bind(right))) AS u(x) ORDER BY 1"
                return try await store.statements.run(statement, on: connection, logger: logger).map { try $0.decode(Int64.self) }
            }
            #expect(try await add(40, [2, 1]) == [41, 42])
            #expect(try await add(1, [9]) == [10])
            var other = SQLStatement()
            other.sql = "SELECT \(other.bind("prepared")) || '!'"
            #expect(try await store.statements.run(other, on: connection, logger: logger).map { try $0.decode(String.self) } == ["prepared!"])
            // A NULL's type is not known from its value: that statement runs as it is.
            var null = SQLStatement()
            null.sql = "SELECT coalesce(\(null.bindNull(as: "bigint")), 7)"
            #expect(try await store.statements.run(null, on: connection, logger: logger).map { try $0.decode(Int64.self) } == [7])

            let prepared = try await connection.query(
                "SELECT statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY prepare_time", logger: logger
            ).collect { try $0.decode(String.self) }
            #expect(prepared.count == 2, "\(prepared)")
            #expect(prepared.first?.contains("unnest") == true && prepared.last?.contains("'!'") == true, "\(prepared)")
        }
    }
}
#endif
