import Foundation
import Rederive
import RederiveReport
import Testing

@Suite("Dry-run report", .timeLimit(.minutes(5)))
struct DryRunPageTests {
    @Test func aVersionBumpShowsOneValueAndOneDifferenceChartPerChangedNumericColumn() async throws {
        try await withDerivedReadings(count: 60) { path, store in
            let page = try await DryRunPage.make(
                DryRun(store: store, pipelines: [readingsPipeline(version: 2)]), history: store, database: path
            )
            let html = page.html
            // `scaled` changes; `rounded` is numeric but unchanged, `label_upper` is text.
            #expect(html.occurrences(of: "data-chart=\"values\"") == 1)
            #expect(html.occurrences(of: "data-chart=\"differences\"") == 1)
            #expect(html.occurrences(of: "data-chart=\"text-changes\"") == 1)
            #expect(html.contains("data-column=\"scaled\""))
            #expect(html.contains("data-column=\"label_upper\""))
            #expect(!html.contains("data-column=\"rounded\""))
            #expect(html.contains("v1 → v2"))
            // Differences of about 1 % and one of ×400 span decades.
            #expect(html.contains("log scale"))
            #expect(page.report.examined == 63)
            #expect(page.report.failures.count == 1)
        }
    }

    @Test func everyTextFromTheDatabaseIsEscaped() async throws {
        try await withDerivedReadings(count: 20) { path, store in
            let page = try await DryRunPage.make(
                DryRun(store: store, pipelines: [readingsPipeline(version: 2)]), history: store, database: path + "<i>"
            )
            let html = page.html
            // The ×400 record changes most, so its key leads the table.
            #expect(page.samples.topRecords.first?.key == "<script>alert(1)</script>")
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
            #expect(html.contains("refusing a &lt;b&gt;bad&lt;/b&gt; reading"))
            #expect(html.contains("test.sqlite&lt;i&gt;"))
            #expect(html.contains("&lt;u&gt;x&lt;/u&gt;"))
            #expect(html.contains("&lt;U&gt;X&lt;/U&gt;"))
            #expect(!html.contains("<u>"))
            #expect(!html.contains("<U>"))
            #expect(!html.contains("<script"))
            #expect(!html.contains("<img"))
            #expect(!html.contains("<b>"))
            #expect(!html.contains("<i>"))
            #expect(html.selfContained)
        }
    }

    @Test func redactedKeysNeverAppear() async throws {
        try await withDerivedReadings(count: 20) { path, store in
            let html = try await DryRunPage.make(
                DryRun(store: store, pipelines: [readingsPipeline(version: 2)]), history: store, database: path, redactKeys: true
            ).html
            #expect(!html.contains("alert(1)"))
            #expect(!html.contains("alert(2)"))
            #expect(!html.contains("reading-"))
            #expect(html.contains("record #"))
        }
    }

    @Test func chartsComeFromABoundedSampleThatThePageAnnounces() async throws {
        try await withDerivedReadings(count: 100) { path, store in
            let page = try await DryRunPage.make(
                DryRun(store: store, pipelines: [readingsPipeline(version: 2)]), history: store, database: path, sampleSize: 10
            )
            let scaled = try #require(page.samples.numeric.first { $0.key.column == "scaled" }?.value)
            #expect(scaled.values.elements.count == 10)
            #expect(scaled.values.seen == 102)
            #expect(scaled.differences.elements.count == 10)
            #expect(page.html.contains("sample of at most 10 values"))
            #expect(page.html.contains("Values of 10 records sampled of 102"))
            // The same database gives the same sample.
            let again = try await DryRunPage.make(
                DryRun(store: store, pipelines: [readingsPipeline(version: 2)]), history: store, database: path, sampleSize: 10
            )
            let scaledAgain = try #require(again.samples.numeric.first { $0.key.column == "scaled" }?.value)
            #expect(scaledAgain.values.elements == scaled.values.elements)
        }
    }

    @Test func nothingStaleGivesAReportWithoutCharts() async throws {
        try await withDerivedReadings(count: 5) { path, store in
            let html = try await DryRunPage.make(DryRun(store: store, pipelines: [readingsPipeline(version: 1)]), history: store, database: path).html
            #expect(html.occurrences(of: "data-chart=\"values\"") == 0)
            #expect(html.contains("No record&#39;s numbers would change.") || html.contains("No record's numbers would change."))
        }
    }
}

extension String {
    func occurrences(of needle: String) -> Int {
        components(separatedBy: needle).count - 1
    }

    /// No script, and no attribute that could make the browser fetch anything.
    var selfContained: Bool {
        !contains("<script") && !contains(/<[^>]*\s(src|href|xlink:href)=/) && !contains("url(") && !contains("@import")
    }
}
