#if !PostgreSQL
import Testing

/// A build without the PostgreSQL trait names the build command that adds it, in one line, and
/// never shows the URL's password.
@Suite struct PostgresWithoutTraitTests {
    @Test func aPostgresURLNamesTheTraitBuild() async throws {
        try await CommandHarness.withHarness(serverDatabase: "postgres://app:hunter2@db.internal:5432/rooms") { harness in
            let status = try await harness.rederive("status")
            #expect(status.status == 1)
            #expect(status.errors.contains("swift build --traits PostgreSQL"), "\(status.errors)")
            #expect(!status.errors.contains("hunter2"))
            #expect(status.errors.split(separator: "\n").count == 1)
        }
    }
}
#endif
