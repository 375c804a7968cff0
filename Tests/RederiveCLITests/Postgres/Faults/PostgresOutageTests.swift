#if PostgreSQL
import Foundation
import Glibc
import RederivePostgresTestSupport
import Testing

/// A server stopped and started again in the middle of a run: the run says in one line that it
/// cannot reach the database and retries, in one more that it is back and after how long, at the
/// default log level (and otherwise only what the stop cut short), and then completes with the
/// values a SQLite run derives.
@Suite("PostgreSQL server outage", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresOutageTests {
    static let count = 240
    static let seed = "7"

    @Test func aServerStoppedMidRunIsToldInTwoLinesAndTheRunCompletes() async throws {
        let sqliteValues = try await TestStore.sqlite.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", String(Self.count), "--seed", Self.seed)
            _ = try await harness.rederive("run", "--progress", "none")
            return try PostgresCommandTests.derivedValues(harness)
        }
        // A cluster of its own: the shared one serves other tests while this one is stopped.
        let server = try PostgresServer.startAlone()
        defer { server.stop() }
        let url = try server.makeDatabase()
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", String(Self.count), "--seed", Self.seed)
            try #require(generated.status == 0, "\(generated.errors)")
            // Paced, so that the server stops while most records are still to derive.
            let run = try RederiveProcess.start(
                ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "60", "--progress", "json"],
                in: harness.directory
            )
            let outcome: RederiveProcess.Outcome
            do {
                _ = try await run.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 3 }
                try server.control("stop", options: ["-m", "fast"])
                try await Task.sleep(for: .seconds(3))
                try server.control("start")
                outcome = try await run.wait()
            } catch {
                run.kill()
                _ = try? await run.wait()
                throw error
            }
            #expect(outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            let lines = outcome.errors.split(separator: "\n").map(String.init)
            // The outage in two lines, one when it begins and one when it ends, whatever the retries.
            let began = lines.indices.filter { lines[$0].contains(" warning cannot reach the database; retrying until it is back ") }
            let ended = lines.indices.filter { lines[$0].contains(" info the database is reached again ") && lines[$0].contains(" outage=") }
            #expect(began.count == 1 && ended.count == 1, "\(outcome.errors)")
            #expect(began.first.flatMap { start in ended.first.map { start < $0 } } == true, "\(outcome.errors)")
            // Refused once the server is down; a connection tried while it shuts down is turned away;
            // a statement under way has its session terminated, or its connection reset, by the shutdown.
            #expect(began.first.map {
                lines[$0].contains("error=\"connection refused (is the server running?)\"")
                    || lines[$0].contains("error=\"the server is shutting down or starting up\"")
                    || lines[$0].contains("error=\"the session was terminated by an administrator (pg_terminate_backend, or the server shutting down)\"")
                    || lines[$0].contains("error=\"the server closed the connection\"")
                    || lines[$0].contains("error=\"the connection was reset\"")
            } == true, "\(outcome.errors)")
            // Besides, only what the stop cut short may be told: a claim under way, tried again; a
            // commit under way, whose outcome cannot be known, and the new lease taken after it; a
            // heartbeat that fell in the outage.
            let cutShort = [
                " warning a claim failed; trying again ", " warning a commit's outcome is unknown; ",
                " warning the lease was lost and its records taken over; ", " warning cannot renew the lease ",
            ]
            let others = lines.indices.filter { !began.contains($0) && !ended.contains($0) }.map { lines[$0] }
            #expect(others.allSatisfy { line in cutShort.contains { line.contains($0) } }, "\(outcome.errors)")
            #expect(try PostgresCommandTests.derivedValues(harness, server: server) == sqliteValues)
        }
    }
}

extension PostgresServer {
    /// A new cluster on a free port of 127.0.0.1, for a test that stops and starts its server. Stop
    /// it with ``stop()``.
    static func startAlone() throws -> PostgresServer {
        let server = PostgresServer(directory: try initializeCluster(), port: try freePort())
        do {
            try server.control("start")
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Runs `pg_ctl action` on the cluster and waits until it is done: `start` listens on the
    /// cluster's port again.
    func control(_ action: String, options: [String] = []) throws {
        try Self.run(
            ["\(Self.binaries)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60"] + options
                + ["-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", action],
            asServer: geteuid() == 0
        )
    }
}
#endif
