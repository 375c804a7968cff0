import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

/// A processor is identified by its pipeline and its name: two pipelines on one database may each have
/// a processor of the same name, and their stamps and failures never mix.
@Suite("Processor identity")
struct ProcessorIdentityTests {
    @Test func twoPipelinesWithOneProcessorNameKeepTheirOwnStamps() async throws {
        try await withTemporaryDatabase { path in
            let scans = scoringPipeline("scans", table: "scans", factor: 1)
            let notes = scoringPipeline("notes", table: "notes", factor: 10)
            let store = try SQLiteStore(path: path)
            try await store.prepare(scans)
            try await store.prepare(notes)
            // The same record ids in both tables: the collision the old key allowed.
            try insertRecords(samples(6), into: path, table: "scans")
            try insertRecords(samples(6), into: path, table: "notes")

            let first = try await Runner(store: store, pipelines: [scans]).run()
            #expect(first.counts == RunCounts(changed: 6))
            // The notes pipeline's records are still all stale, though ids 1...6 are stamped for `scans.score`.
            let notesStatus = try await store.status(of: notes)
            #expect(notesStatus.map(\.stale) == [6])
            let second = try await Runner(store: store, pipelines: [notes]).run()
            #expect(second.counts == RunCounts(changed: 6))

            // A version bump of one pipeline's `score` leaves the other pipeline's `score` up to date.
            let bumped = scoringPipeline("scans", table: "scans", version: 2, factor: 2)
            #expect(try await store.status(of: bumped).map(\.stale) == [6])
            #expect(try await store.status(of: notes).map(\.stale) == [0])
            let third = try await Runner(store: store, pipelines: [bumped, notes]).run()
            #expect(third.counts == RunCounts(changed: 6))

            let db = try appConnection(path)
            let values = try await db.read { db in
                (
                    try Double.fetchOne(db, sql: "SELECT d.score FROM scans s JOIN scans_derived d ON d.id = s.id WHERE key = 'k2'"),
                    try Double.fetchOne(db, sql: "SELECT d.score FROM notes n JOIN notes_derived d ON d.id = n.id WHERE key = 'k2'")
                )
            }
            #expect(values.0 == 10)  // (2 + 1 + 2) × 2
            #expect(values.1 == 50)  // (2 + 1 + 2) × 10
        }
    }

    @Test func failuresAndInvalidationStayWithTheirPipeline() async throws {
        try await withTemporaryDatabase { path in
            let scans = scoringPipeline("scans", table: "scans", factor: 1)
            let notes = scoringPipeline("notes", table: "notes", factor: 1)
            let store = try SQLiteStore(path: path)
            try await store.prepare(scans)
            try await store.prepare(notes)
            try insertRecords([("a", sampleJSON("explode", [1]))], into: path, table: "scans")
            try insertRecords([("a", sampleJSON("fine", [1]))], into: path, table: "notes")
            _ = try await Runner(store: store, pipelines: [scans, notes]).run()

            #expect(try await store.failures(of: scans, filter: FailureFilter()).map(\.key) == ["a"])
            #expect(try await store.failures(of: notes, filter: FailureFilter()).isEmpty)

            #expect(try await store.invalidate(notes, processors: ["score"], keys: nil) == 1)
            #expect(try await store.status(of: notes).map(\.stale) == [1])
            // Invalidating notes' `score` did not clear scans' failure of `score`.
            #expect(try await store.status(of: scans).map(\.failed) == [1])
        }
    }

    @Test(arguments: [
        ("two pipelines on one table", ["t", "t"], "both read table \"t\""),
        ("one pipeline name twice", ["t", "u"], "pipeline name \"same\" is registered twice"),
    ])
    func theRunnerRejectsConflictingPipelinesWithoutARegistry(_ label: String, _ tables: [String], _ message: String) async throws {
        try await withTemporaryDatabase { path in
            let names = label == "one pipeline name twice" ? ["same", "same"] : ["a", "b"]
            let pipelines = zip(names, tables).map { scoringPipeline($0.0, table: $0.1, factor: 1) }
            let store = try SQLiteStore(path: path)
            let rejected: @Sendable (any Error) -> Bool = { error in (error as? RederiveError)?.message.contains(message) ?? false }
            await #expect(performing: { _ = try await Runner(store: store, pipelines: pipelines).run() }, throws: rejected)
            await #expect(performing: { _ = try await DryRun(store: store, pipelines: pipelines).run() }, throws: rejected)
            await #expect(performing: { _ = try await Verifier(source: store, pipelines: pipelines).verify() }, throws: rejected)
        }
    }
}
