import Foundation
import Rederive
import RederiveReport
import RederiveSQLite
import Testing

@Suite("Database report", .timeLimit(.minutes(5)))
struct DatabaseStatePageTests {
    @Test func theReportShowsStatusRunsFailuresAndADistributionPerNumericColumn() async throws {
        try await withDerivedReadings(count: 40) { path, store in
            let pipeline = readingsPipeline(version: 2)
            try await store.prepare(pipeline)
            _ = try await Runner(store: store, pipelines: [pipeline]).run()
            let state = try await DatabaseState.read(from: store, pipelines: [pipeline], sampleSize: 25)
            #expect(state.runs.count == 2)
            #expect(state.runs.first?.id ?? 0 < state.runs.last?.id ?? 0)
            #expect(state.sampled["readings"] == DatabaseState.SampleSize(sampled: 25, records: 43))
            #expect(state.values.keys.map(\.column).sorted() == ["rounded", "scaled"])
            #expect(state.values.values.allSatisfy { $0.count == 25 })

            let html = DatabaseStatePage.html(state, database: path)
            #expect(html.occurrences(of: "data-chart=\"status\"") == 1)
            #expect(html.occurrences(of: "data-chart=\"run-rate\"") == 1)
            #expect(html.occurrences(of: "data-chart=\"run-failures\"") == 1)
            #expect(html.occurrences(of: "data-chart=\"distribution\"") == 2)
            #expect(html.contains("refusing a &lt;b&gt;bad&lt;/b&gt; reading"))
            #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
            #expect(html.contains("25 records chosen at random of 43"))
            #expect(!html.contains("<img"))
            #expect(html.selfContained)

            let redacted = DatabaseStatePage.html(state, database: path, redactKeys: true)
            #expect(!redacted.contains("alert(2)"))
            #expect(redacted.contains("record #"))
        }
    }

    @Test func anEmptyHistoryAndNoFailuresSaySo() async throws {
        try await withDerivedReadings(count: 3) { path, store in
            var state = try await DatabaseState.read(from: store, pipelines: [readingsPipeline(version: 1)])
            state.runs = []
            state.failures = []
            let html = DatabaseStatePage.html(state, database: path)
            #expect(html.contains("No run is recorded yet."))
            #expect(html.contains("No current failure."))
        }
    }
}
