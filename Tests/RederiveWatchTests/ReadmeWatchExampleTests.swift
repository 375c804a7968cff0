import Foundation
import GRDB
import Logging
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import ServiceLifecycle
import Synchronization
import Testing

/// An app's own service: writes recipes as an app does, waits until the watcher beside it derived
/// them, then waits for the group's graceful shutdown.
struct RecipeWritingService: Service {
    let path: String
    /// Set once the watcher derived what the service wrote.
    let derivedAll = Flag()

    func run() async throws {
        for (slug, minutes) in [("toast", 5), ("roast", 90)] {
            let json = #"{"title": "\#(slug)", "ingredients": ["a", "b"], "minutes": \#(minutes)}"#
            try appExecute(path, "INSERT INTO recipes (slug, json) VALUES (?, ?)", [slug, Data(PayloadCodec.encode(Array(json.utf8)))])
        }
        let derived = await eventually(within: 120) {
            (try? appConnection(path).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM recipes_derived WHERE effort IS NOT NULL")
            }) == 2
        }
        if !derived { throw RederiveError(.database, "the watcher did not derive the recipes") }
        derivedAll.set()
        try await gracefulShutdown()
    }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() {
        value.withLock { $0 = true }
    }
}

@Suite("README watch example")
struct ReadmeWatchExampleTests {
    /// The lines between the watch example's markers, without the function's indentation.
    static func excerpt(_ text: String) -> String {
        let lines = text.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.contains("README watch example begin") }),
              let end = lines.firstIndex(where: { $0.contains("README watch example end") })
        else { return "" }
        return lines[(begin + 1)..<end].map { String($0.dropFirst(4)) }.joined(separator: "\n")
    }

    @Test func theWatchingPageShowsExactlyTheCodeThisTestRuns() throws {
        let readme = try String(contentsOf: PackageRoot.appending("docs/watching.md"), encoding: .utf8)
        let source = try String(
            contentsOf: PackageRoot.appending("Tests/RederiveWatchTests/ReadmeWatchExample.swift"),
            encoding: .utf8
        )
        let code = Self.excerpt(source)
        #expect(!code.isEmpty)
        #expect(readme.contains("```swift\n" + code + "\n```"))
    }

    @Test func theWatcherDerivesWhatTheAppWritesAndStopsWithTheGroup() async throws {
        try await withTemporaryDatabase { path in
            try await SQLiteStore(path: path).prepare(recipes)
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let app = RecipeWritingService(path: path)
            let group = try appServiceGroup(databasePath: path, appServer: app, logger: logger)
            // The group runs until it is shut down gracefully, as SIGTERM would (sending this test
            // process a signal would reach every test running beside it).
            let serving = Task { try await group.run() }
            #expect(await eventually(within: 120) { app.derivedAll.isSet })
            await group.triggerGracefulShutdown()
            try await serving.value
            let (efforts, leases, running) = try await appConnection(path).read { db in
                (
                    try String.fetchAll(db, sql: "SELECT d.effort FROM recipes r JOIN recipes_derived d ON d.id = r.id ORDER BY r.slug"),
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_leases"),
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_runs WHERE status = 'running'")
                )
            }
            #expect(efforts == ["involved", "easy"])
            // The group ended: the watcher released its lease and ended its run.
            #expect(leases == 0)
            #expect(running == 0)
        }
    }
}
