#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import Testing

/// `sslmode` as libpq reads it, against a server that accepts only TLS: `require` encrypts without
/// checking the certificate, `verify-ca` checks it against `sslrootcert`, `verify-full` the host name
/// too, and `disable` is refused by the server.
@Suite(
    "TLS to PostgreSQL", .enabled(if: PostgresServer.testsRun && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), PostgresServer.skipReason),
    .timeLimit(.minutes(5))
)
struct PostgresTLSTests {
    @Test func eachSSLModeConnectsOrFailsAsLibpqWould() async throws {
        let cluster = try PostgresServer.startWithTLS()
        defer { cluster.server.stop() }
        let database = String(try cluster.server.makeDatabase().split(separator: "/").last?.prefix { $0 != "?" } ?? "")
        let port = cluster.server.port
        // A run, which prepares the empty database, where status would only say that it is not prepared.
        func status(_ host: String, _ query: String) async throws -> CommandHarness.Outcome {
            try await CommandHarness.withHarness(serverDatabase: "postgres://postgres@\(host):\(port)/\(database)?\(query)") { harness in
                try await harness.rederive("run", "--progress", "none")
            }
        }
        for (host, query) in [
            ("127.0.0.1", "sslmode=require"),
            ("127.0.0.1", "sslmode=prefer"),
            ("127.0.0.1", "sslmode=verify-ca&sslrootcert=\(cluster.authority)"),
            ("localhost", "sslmode=verify-full&sslrootcert=\(cluster.authority)"),
        ] {
            let outcome = try await status(host, query)
            #expect(outcome.status == 0, "\(host) \(query): \(outcome.errors)")
        }
        for (host, query, reason) in [
            ("127.0.0.1", "sslmode=disable", "pg_hba.conf rejects connection for host \"127.0.0.1\", user \"postgres\", database \"\(database)\", no encryption"),
            ("127.0.0.1", "sslmode=verify-full&sslrootcert=\(cluster.authority)", "TLS: the server's certificate is not for the host connected to"),
            ("localhost", "sslmode=verify-full&sslrootcert=\(cluster.otherAuthority)", "TLS: the server's certificate is not signed by a trusted authority"),
        ] {
            let outcome = try await status(host, query)
            #expect(outcome.status == 1, "\(host) \(query) was accepted")
            #expect(outcome.errors.hasPrefix("rederive: cannot open postgres://postgres@\(host):\(port)/\(database)"), "\(outcome.errors)")
            #expect(outcome.errors.contains(reason) && outcome.errors.split(separator: "\n").count == 1, "\(query): \(outcome.errors)")
        }
    }
}
#endif
