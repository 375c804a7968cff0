import Foundation
import RederiveTestSupport
import Testing

@Suite("DocC articles")
struct DocumentationArticleTests {
    static let catalog = PackageRoot.appending("Sources/Rederive/Rederive.docc")

    @Test func writingAPipelineShowsExactlyTheCodeTheReadmeTestCompiles() throws {
        let article = try String(contentsOf: Self.catalog.appendingPathComponent("WritingAPipeline.md"), encoding: .utf8)
        let source = try String(
            contentsOf: PackageRoot.appending("Tests/RederiveTestSupport/ReadmeExample.swift"), encoding: .utf8
        )
        let code = ReadmeExampleTests.excerpt(source)
        #expect(!code.isEmpty)
        #expect(article.contains("```swift\n" + code + "\n```"))
    }

    @Test func everyArticleIsListedOnTheLandingPage() throws {
        let landing = try String(contentsOf: Self.catalog.appendingPathComponent("Rederive.md"), encoding: .utf8)
        let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path)
            .filter { $0.hasSuffix(".md") && $0 != "Rederive.md" }
            .map { String($0.dropLast(3)) }
        #expect(articles.count == 4)
        for article in articles {
            #expect(landing.contains("<doc:\(article)>"), "\(article) is not on the landing page")
        }
    }

    /// The rows of a Markdown table whose first cell is one of `terms`: term and meaning.
    static func rows(_ text: String, terms: [String]) -> [String: String] {
        var rows: [String: String] = [:]
        for line in text.components(separatedBy: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, terms.contains(cells[1]) else { continue }
            rows[cells[1]] = cells[2]
        }
        return rows
    }

    @Test func theGlossaryGivesTheRecordStatesTheMeaningsTheReadmeGives() throws {
        let landing = try String(contentsOf: Self.catalog.appendingPathComponent("Rederive.md"), encoding: .utf8)
        let readme = try String(contentsOf: PackageRoot.appending("README.md"), encoding: .utf8)
        let states = ["up to date", "stale", "failed"]
        let inReadme = Self.rows(readme, terms: states)
        #expect(inReadme.count == states.count)
        #expect(Self.rows(landing, terms: states) == inReadme)
    }

    @Test func theGlossaryDefinesEveryConceptTheApiAndTheCommandsShare() throws {
        let landing = try String(contentsOf: Self.catalog.appendingPathComponent("Rederive.md"), encoding: .utf8)
        let concepts = [
            "payload", "processor", "pipeline", "stamp", "up to date", "stale", "failed", "run", "lease", "claim", "commit",
            "generation", "projection", "worker", "batch", "pass", "lane", "fresh", "backlog", "hold", "watcher run", "pending record",
        ]
        let rows = Self.rows(landing, terms: concepts)
        for concept in concepts {
            #expect(!(rows[concept] ?? "").isEmpty, "the glossary has no entry for \(concept)")
        }
    }
}
