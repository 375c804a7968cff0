#if PostgreSQL
import PostgresNIO
@testable import RederivePostgres
import RederivePostgresTestSupport
import Testing

/// What rederive's sessions set on the server, seen from a session of the store's pool.
@Suite("the store's session settings on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresSessionSettingsTests {
    /// Estimated far above `jit_above_cost` (100,000 by default), as a scan over many records is.
    static let costlyQuery = "SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b"

    @Test func noStatementIsCompiledJustInTime() async throws {
        let server = try PostgresServer.shared()
        let store = try await PostgresStore(url: try server.makeDatabase())
        defer { store.close() }
        let logger = store.logger
        try await store.withConnection("test") { connection in
            func plan() async throws -> String {
                try await connection.query("EXPLAIN \(unescaped: Self.costlyQuery)", logger: logger)
                    .collect { try $0.decode(String.self) }.joined(separator: "\n")
            }
            #expect(try await connection.query("SHOW jit", logger: logger).collect { try $0.decode(String.self) } == ["off"])
            let planned = try await plan()
            #expect(!planned.contains("JIT"), "\(planned)")
            // The same query on a session that allows it is compiled, where the server can compile.
            let available = try await connection.query("SELECT pg_jit_available()", logger: logger).collect { try $0.decode(Bool.self) }
            if available == [true] {
                try await connection.query("SET jit = on", logger: logger)
                let compiled = try await plan()
                try await connection.query("SET jit = off", logger: logger)
                #expect(compiled.contains("JIT"), "\(compiled)")
            }
        }
    }
}
#endif
