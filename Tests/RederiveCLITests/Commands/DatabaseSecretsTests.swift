import Foundation
import Testing

/// A password on the command line is warned about, and `run --isolate` starts its worker processes,
/// which never connect, without the variables that hold or point to database passwords.
@Suite("database secrets", .timeLimit(.minutes(5)))
struct DatabaseSecretsTests {
    static let warning =
        "rederive: warning: the --db URL holds a password, which other users of this machine can see with ps while rederive runs; set $PGPASSWORD or put it in ~/.pgpass instead"

    /// `backup` refuses any PostgreSQL URL before connecting, in a build with or without PostgreSQL.
    func backup(_ harness: CommandHarness, db: String?) async throws -> CommandHarness.Outcome {
        try await harness.rederive(["backup", "--to", harness.directory.appendingPathComponent("copy").path] + (db.map { ["--db", $0] } ?? []))
    }

    @Test func aPasswordInTheDbOptionIsWarnedAboutOnce() async throws {
        try await CommandHarness.withHarness { harness in
            for url in ["postgres://app:hunter2@127.0.0.1:5432/rooms", "postgresql://app:hunter%3A2@db.internal/rooms?sslmode=require"] {
                let backup = try await backup(harness, db: url)
                #expect(backup.status == 1)
                let lines = backup.errors.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count == 3 && lines.first.map(String.init) == Self.warning, "\(backup.errors)")
                #expect(lines.dropFirst().first?.hasPrefix("rederive: rederive backup works on SQLite databases only") == true, "\(backup.errors)")
                #expect(!backup.errors.contains("hunter"), "\(backup.errors)")
            }
        }
    }

    /// `$REDERIVE_DB` does not show in ps, and only the user's own processes can read it, as with
    /// `$PGPASSWORD`; a URL without a password needs no warning.
    @Test func noWarningWithoutAPasswordOnTheCommandLine() async throws {
        try await CommandHarness.withHarness(serverDatabase: "postgres://app:hunter2@127.0.0.1:5432/rooms") { harness in
            let urls = [
                "postgres://app@127.0.0.1:5432/rooms", "postgres://app:@127.0.0.1:5432/rooms",
                "postgres://app@127.0.0.1:5432/rooms?application_name=a:b@c", harness.directory.appendingPathComponent("a:b@c").path,
            ]
            for db in [nil] + urls {
                let backup = try await backup(harness, db: db)
                #expect(!backup.errors.contains("warning"), "\(db ?? "$REDERIVE_DB"): \(backup.errors)")
            }
        }
    }

    /// The fixture's processor fails a record labelled `environment` with the names of the variables
    /// its process has among those asked about: in the run's own process, all of them; in a worker,
    /// only the one that says nothing about a database.
    @Test(arguments: [false, true])
    func isolatedWorkersStartWithoutDatabaseSecrets(isolated: Bool) async throws {
        try await TrapFixtureCorpus.with([TrapFixtureCorpus.payload(label: "environment", index: 0)]) { directory, database in
            let variables = [
                "PGPASSWORD": "hunter2", "PGPASSFILE": directory.appendingPathComponent("pgpass").path,
                "PGSERVICEFILE": directory.appendingPathComponent("pg_service.conf").path,
                "REDERIVE_DB": database, "REDERIVE_TEST_MARKER": "kept",
            ]
            let run = try await RederiveProcess.run(
                ["run", "--progress", "none"] + (isolated ? ["--isolate"] : []),
                in: directory, program: TrapFixtureCorpus.program, environment: variables
            )
            #expect(run.status == 3, "\(run.errors)")
            let report = try await RederiveProcess.run(["failures", "--db", database, "--format", "json"], in: directory, program: TrapFixtureCorpus.program)
            let failures = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [[String: Any]])
            let messages = failures.compactMap { $0["message"] as? String }
            let expected = isolated ? "set: REDERIVE_TEST_MARKER" : "set: PGPASSWORD PGPASSFILE PGSERVICEFILE REDERIVE_DB REDERIVE_TEST_MARKER"
            #expect(messages == [expected], "\(report.output)")
        }
    }
}
