import Foundation
import Testing

@Suite("DocC articles")
struct DocumentationArticleTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Rederive/Rederive.docc")

    @Test func writingAPipelineShowsExactlyTheCodeTheReadmeTestCompiles() throws {
        let article = try String(contentsOf: Self.catalog.appendingPathComponent("WritingAPipeline.md"), encoding: .utf8)
        let source = try String(
            contentsOf: ReadmeExampleTests.root.appendingPathComponent("Tests/RederiveTests/ReadmeExample.swift"), encoding: .utf8
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
}
