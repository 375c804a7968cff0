#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import RederiveTestSupport
import Testing

/// The least-privilege roles of docs/postgresql.md, with its own statements: one that runs, one that
/// only reads status, failures, history and reports.
@Suite("The documented PostgreSQL grants", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresGrantTests {
    /// The `sql` blocks of docs/postgresql.md that grant to `role`.
    static func readmeGrants(to role: String) throws -> [String] {
        let readme = PackageRoot.appending("docs/postgresql.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        return text.components(separatedBy: "```sql\n").dropFirst()
            .compactMap { $0.components(separatedBy: "```").first }
            .filter { $0.contains("TO \(role);") }
    }

    @Test func theDocumentedGrantsAreEnoughToRunRollBackAndReadStatus() async throws {
        let runGrants = try Self.readmeGrants(to: "rederive_run")
        let statusGrants = try Self.readmeGrants(to: "rederive_status")
        try #require(runGrants.count == 1 && statusGrants.count == 1, "docs/postgresql.md must show one GRANT block per role")
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let database = try #require(harness.serverDatabaseName)
            // The owner creates the tables once.
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            for role in ["rederive_run", "rederive_status"] {
                try await harness.execute("DO $$ BEGIN CREATE ROLE \(role) LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
            }
            try await harness.execute(runGrants[0] + statusGrants[0])

            let runner = server.url(database: database, user: "rederive_run")
            let run = try await harness.rederive("run", "--db", runner, "--progress", "none", "--parallel", "2")
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("13 derived"), "\(run.output)")
            _ = try await harness.rederive("invalidate", "--processor", "floor_area", "--db", runner)
            let again = try await harness.rederive("run", "--db", runner, "--progress", "none")
            #expect(again.output.contains("13 unchanged"), "\(again.output)\(again.errors)")
            // A rollback locks the app's rows through the holder function, which this role may call.
            let rollback = try await harness.rederive("rollback", "1", "--db", runner)
            #expect(rollback.status == 0, "\(rollback.errors)")
            #expect(rollback.output.hasPrefix("rolled back run 1: "), "\(rollback.output)")

            let reader = server.url(database: database, user: "rederive_status")
            for arguments in [["status"], ["failures"], ["history"], ["report", harness.directory.appendingPathComponent("state.html").path]] {
                let outcome = try await harness.rederive(arguments + ["--db", reader])
                #expect(outcome.status == 0, "\(arguments): \(outcome.errors)")
            }
            let refused = try await harness.rederive("run", "--db", reader, "--progress", "none")
            #expect(refused.status == 1)
            #expect(refused.errors.contains("permission denied"), "\(refused.errors)")
            #expect(refused.errors.split(separator: "\n").count == 1)
        }
    }
}
#endif
