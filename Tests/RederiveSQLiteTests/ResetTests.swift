import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

@Suite("Development reset", .timeLimit(.minutes(5)))
struct ResetTests {
    @Test(arguments: [Pipeline.Layout?.none, .inline])
    func resetClearsDerivedStateAndKeepsPayloads(layout: Pipeline.Layout?) async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline(layout: layout)
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(5) + [("bomb", sampleJSON("explode", [1]))], into: path)
            _ = try await run(test.pipeline, at: path)
            let table = layout == .inline ? "items" : "items_derived"
            let inspect = Inspection(path: path)
            let payloads = try await appConnection(path).read { db in try Data.fetchAll(db, sql: "SELECT payload FROM items ORDER BY id") }
            #expect(try inspect.count("SELECT count(*) FROM rederive_failures") == 1)

            let cleared = try await SQLiteStore(path: path).reset(test.pipeline)
            #expect(cleared == 6)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps") == 0)
            #expect(try inspect.count("SELECT count(*) FROM rederive_failures") == 0)
            #expect(try inspect.count("SELECT count(*) FROM \(table) WHERE total IS NULL AND label_upper IS NULL AND value_count = 0") == 6)
            #expect(try await appConnection(path).read { db in try Data.fetchAll(db, sql: "SELECT payload FROM items ORDER BY id") } == payloads)
            let again = try await run(test.pipeline, at: path)
            #expect(again.pending == 6)
        }
    }
}
