import Foundation
import Rederive
import RederiveMemory
import RederiveTestSupport
import Testing

/// The in-memory store's article shows an app's test of its own pipeline: this is that test, run.
@Suite("The in-memory store's example")
struct MemoryStoreExampleTests {
    // Memory store example begin
    @Test func aStewDerivesItsIngredientCount() async throws {
        let store = MemoryStore()
        try await store.prepare(recipes)
        let stew = #"{"title": "Beef stew", "ingredients": ["beef", "carrots", "onions"], "minutes": 90}"#
        try store.insert(Array(stew.utf8), key: "stew", into: recipes)

        let summary = try await Runner(store: store, pipelines: [recipes]).run()
        #expect(summary.counts.changed == 1)
        let values = try await store.storedRows(of: recipes, recordIDs: [1])[1]?.values
        #expect(values == [.integer(3), .integer(0), .text("Beef stew"), .integer(2), .text("involved")])
    }
    // Memory store example end

    static let article = PackageRoot.appending("Sources/RederiveMemory/RederiveMemory.docc/RederiveMemory.md")

    @Test func theArticleShowsExactlyTheCodeThisTestRuns() throws {
        let article = try String(contentsOf: Self.article, encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex { $0.contains("// Memory store example " + "begin") })
        let end = try #require(lines.firstIndex { $0.contains("// Memory store example " + "end") })
        // The test as an app writes it: at the top level of its test file.
        let code = lines[(begin + 1)..<end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }.joined(separator: "\n")
        #expect(article.contains("```swift\nimport Rederive\nimport RederiveMemory\nimport Testing\n\n" + code + "\n```"))
    }
}
