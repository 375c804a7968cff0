import Foundation
import Rederive
import RederiveCLI
import RederiveTestSupport
import Testing

/// The README is a user's guide: short, naming every command, failure kind and exit status, with
/// every link leading to a page that exists.
@Suite("README as a guide")
struct ReadmeGuideTests {
    static let root = PackageRoot.url

    static func readme() throws -> String {
        try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The first cells of the table that follows `heading`.
    static func firstCells(under heading: String, in text: String) throws -> [String] {
        let section = try #require(text.range(of: "\n\(heading)\n"), "no \(heading) in README.md")
        var cells: [String] = []
        var inTable = false
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let cell = line.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                cells.append(cell)
            } else if inTable {
                break
            }
        }
        return Array(cells.dropFirst(2))
    }

    @Test func theReadmeStaysUnderFourHundredLines() throws {
        let lines = try Self.readme().split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines < 400, "README.md has \(lines) lines; move detail to docs/")
    }

    @Test func everyCommandHasARowInTheCommandTable() throws {
        let rows = try Self.firstCells(under: "## Commands", in: Self.readme())
        for command in HelpExampleTests.visibleCommands {
            #expect(rows.contains { $0.hasPrefix("`\(command)") || $0.contains(" `\(command)") }, "\(command) is not in the README's command table")
        }
    }

    @Test func everyFailureKindHasARow() throws {
        let rows = try Self.firstCells(under: "### Failure kinds", in: Self.readme())
        #expect(Set(rows) == Set(FailureKind.allCases.map(\.rawValue)))
    }

    @Test func everyExitStatusHasARow() throws {
        let rows = try Self.firstCells(under: "### Exit status", in: Self.readme())
        let documented = ExitStatus.documented.map(String.init)
        #expect(rows == documented, "the README's exit statuses differ from ExitStatus.documented")
    }

    @Test func everyRelativeLinkLeadsToAFile() throws {
        var pages = ["README.md"]
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
        pages += docs.filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        let link = /\]\(([^)#:\s]+)(#[^)]*)?\)/
        for page in pages {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            let directory = Self.root.appendingPathComponent(page).deletingLastPathComponent()
            for match in text.matches(of: link) {
                let target = directory.appendingPathComponent(String(match.1)).standardizedFileURL.path
                #expect(FileManager.default.fileExists(atPath: target), "\(page) links to \(match.1), which does not exist")
            }
        }
    }
}
