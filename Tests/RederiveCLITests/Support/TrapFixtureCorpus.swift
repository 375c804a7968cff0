import Foundation
import GRDB
import Testing

/// Databases of the trap fixture's `items` pipeline, for tests that run it as a process: created by
/// the fixture's own `run --create` in a temporary directory, and removed with it.
enum TrapFixtureCorpus {
    static let program = "rederive-trap-fixture"

    /// A payload that derives, or with the label `hang`, one whose derivation never ends.
    static func payload(label: String, index: Int) -> String {
        "{\"label\":\"\(label)\",\"values\":[\(index),1,2]}"
    }

    /// Runs `body` with the directory and the path of a database holding `payloads`, keyed `k0`, `k1`, ….
    static func with(_ payloads: [String], _ body: (URL, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-items-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("items.sqlite").path
        // A first run, with nothing to derive, creates the database and the pipeline's table.
        let created = try await RederiveProcess.run(["run", "--create", "--db", database, "--progress", "none"], in: directory, program: program)
        try #require(created.status == 0, "\(created.errors)")
        try await DatabaseQueue(path: database).write { db in
            for (index, payload) in payloads.enumerated() {
                try db.execute(sql: "INSERT INTO items (key, payload) VALUES (?, ?)", arguments: ["k\(index)", payload])
            }
        }
        try await body(directory, database)
    }
}
