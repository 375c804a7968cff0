#if PostgreSQL
import Foundation
import NIOCore
import RederivePostgres
import RederivePostgresTestSupport
import Testing

/// What a person reads when a PostgreSQL database cannot be reached or connects differently than
/// asked: one line, in the words of the problem, never SwiftNIO's or PostgresNIO's.
@Suite("PostgreSQL connection messages", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresConnectionMessageTests {
    @Test func aPortWithNoServerIsRefusedInOneLine() async throws {
        let port = try PostgresServer.freePort()
        try await CommandHarness.withHarness(serverDatabase: "postgres://postgres@127.0.0.1:\(port)/nothing?sslmode=disable") { harness in
            for command in [["status"], ["run", "--progress", "none"]] {
                let outcome = try await harness.rederive(command)
                #expect(outcome.status == 1, "\(command): \(outcome.status)")
                #expect(outcome.errors == "rederive: cannot connect to 127.0.0.1:\(port): connection refused (is the server running?)\n")
            }
        }
    }

    /// The other ways a connection fails, which a test cannot bring about on loopback alone.
    @Test func anUnreachableHostAndATimeoutSayWhatHappened() {
        #expect(ConnectionFailure.reason(errno: EHOSTUNREACH) == "no route to host (is the host up, and the network to it?)")
        #expect(ConnectionFailure.reason(errno: ENETUNREACH) == "the network is unreachable (is the host's address right?)")
        #expect(ConnectionFailure.reason(errno: ETIMEDOUT) == "timed out (is the server reachable?)")
        #expect(ConnectionFailure.reason(underlying: ChannelError.connectTimeout(.seconds(10))) == "timed out after 10 s (is the server reachable?)")
        // As the connection pool logs a failure: as text only.
        #expect(ConnectionFailure.reason(text: "connection reset (error set): No route to host (errno: 113))") == ConnectionFailure.reason(errno: EHOSTUNREACH))
        #expect(ConnectionFailure.reason(text: "PSQLError(code: server, serverInfo: [sqlState: 57P03, ...])") == "the server is shutting down or starting up")
    }

    @Test func sslmodeRequireAgainstAServerWithoutTLSSaysSoAndNamesTheModes() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase().replacingOccurrences(of: "sslmode=disable", with: "sslmode=require")
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let outcome = try await harness.rederive("run", "--progress", "none")
            #expect(outcome.status == 1)
            let database = PostgresServer.databaseName(in: url)
            #expect(outcome.errors == """
                rederive: cannot open postgres://postgres@127.0.0.1:\(server.port)/\(database): the server does not offer TLS, \
                and sslmode=require requires it (sslmode=prefer uses TLS only where the server offers it; sslmode is one of \
                disable, allow, prefer, require, verify-ca, verify-full)

                """)
        }
    }

    /// libpq ignores a password file that others may read, and says so; so does rederive, once.
    @Test func aPasswordFileOthersMayReadIsIgnoredWithAWarning() async throws {
        try await CommandHarness.withHarness(serverDatabase: try PostgresServer.shared().makeDatabase()) { harness in
            let file = try harness.file("pgpass", "*:*:*:*:secret\n")
            for (mode, warned) in [(0o644, true), (0o600, false)] {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
                let outcome = try await harness.rederive(["run", "--progress", "none"], variables: ["PGPASSFILE": file])
                #expect(outcome.status == 0, "\(outcome.errors)")
                #expect(outcome.errors == (warned ? """
                    rederive: warning: password file \(file) has group or world access, so it is ignored; \
                    permissions should be u=rw (0600) or less (chmod 600 \(file))

                    """ : ""), "mode \(String(mode, radix: 8))")
            }
        }
    }

    /// The command the end of a run suggests connects as the run did: the URL keeps its `sslmode`,
    /// and only its password is masked.
    @Test func theFailuresHintKeepsTheURLAsGivenWithThePasswordMasked() async throws {
        let url = try PostgresServer.shared().makeDatabase()
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", "20", "--seed", "3", "--corrupt", "0.3")
            #expect(generated.status == 0, "\(generated.errors)")
            // The test cluster trusts every local connection: the password is given, and not needed.
            let withPassword = url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://postgres:secret@")
            let run = try await harness.rederive("run", "--db", withPassword, "--progress", "none")
            #expect(run.status == 3, "\(run.errors)")
            let hint = try #require(run.output.split(separator: "\n").last.map(String.init))
            let masked = url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://postgres:***@")
            #expect(hint.contains(" failures --run ") && hint.hasSuffix(" --db '\(masked)'`."), "\(hint)")
        }
    }
}
#endif
