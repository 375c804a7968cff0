import Foundation
import Testing

/// The databases and files the hostile-database tests copy from, built once per suite with the built
/// `rederive` and removed after it: a small prepared database, a backup of it and its exports, and a
/// larger one (a bounded few thousand records) for the signal tests.
struct HostileFixtures: Sendable {
    let directory: URL
    /// Each shape, built once and copied into every case that uses it.
    let shapes = HostileShapeCache()
    /// Where processes' captured output goes, apart from the cases' own directories.
    var scratch: URL { directory.appendingPathComponent("scratch", isDirectory: true) }
    /// 12 records, derived once (3 failed), then `floor_area` invalidated so that a run has work.
    var prepared: String { directory.appendingPathComponent("prepared.sqlite").path }
    /// The JSON files `export` wrote from ``prepared``.
    var exports: String { directory.appendingPathComponent("exports", isDirectory: true).path }
    /// 2,000 records, none derived.
    var large: String { directory.appendingPathComponent("large.sqlite").path }
    /// The JSON files of ``large``.
    var largeExports: String { directory.appendingPathComponent("large-exports", isDirectory: true).path }

    static let largeCount = 2_000

    @TaskLocal static var current: HostileFixtures?

    /// The fixtures of the suite that runs this test.
    static func shared() throws -> HostileFixtures {
        guard let current else { throw ProcessError("the hostile-database fixtures are provided by the suite's .hostileFixtures trait") }
        return current
    }

    static func build() async throws -> HostileFixtures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-hostile-\(UUID().uuidString)", isDirectory: true)
        let fixtures = HostileFixtures(directory: directory)
        try FileManager.default.createDirectory(at: fixtures.scratch, withIntermediateDirectories: true)
        // Readable by `nobody`, whom the read-only state runs commands as.
        chmod(directory.path, 0o755)
        let steps: [[String]] = [
            ["generate", "--db", fixtures.prepared, "--count", "12", "--seed", "37", "--corrupt", "0.25"],
            ["run", "--db", fixtures.prepared, "--progress", "none", "--parallel", "2"],
            ["invalidate", "--db", fixtures.prepared, "--processor", "floor_area"],
            ["export", "--db", fixtures.prepared, fixtures.exports],
            ["generate", "--db", fixtures.large, "--count", "\(largeCount)", "--seed", "38", "--corrupt", "0.02"],
            ["export", "--db", fixtures.large, fixtures.largeExports],
        ]
        for step in steps {
            let outcome = try await RederiveProcess.run(step, in: fixtures.scratch)
            guard !outcome.signaled, [0, 3].contains(outcome.status) else {
                throw ProcessError("building the fixtures: rederive \(step.joined(separator: " ")) ended \(outcome.status): \(outcome.errors)")
            }
        }
        try HostileFiles.checkpoint(fixtures.prepared)
        try HostileFiles.checkpoint(fixtures.large)
        return fixtures
    }
}

/// Each database shape built once per suite, with what building it took: a user's table meets its first
/// `rederive run` then, and copies of what that run left go to every case of the shape.
actor HostileShapeCache {
    /// A built shape: its file, and the user's first run on it, for a table the user made.
    struct Built: Sendable {
        let path: String
        let preparation: HostileDatabaseShape.Preparation?
    }

    private var built: [HostileDatabaseShape: Task<Built, any Error>] = [:]

    func shape(_ shape: HostileDatabaseShape, fixtures: HostileFixtures) async throws -> Built {
        if let task = built[shape] { return try await task.value }
        let task = Task {
            let directory = fixtures.directory.appendingPathComponent("shapes/\(shape.rawValue)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("db.sqlite").path
            let preparation = try await shape.make(at: path, fixtures: fixtures)
            return Built(path: path, preparation: preparation)
        }
        built[shape] = task
        return try await task.value
    }
}

/// Builds the hostile-database fixtures before a suite and removes them after it.
struct HostileFixturesTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let fixtures = try await HostileFixtures.build()
        defer { try? FileManager.default.removeItem(at: fixtures.directory) }
        try await HostileFixtures.$current.withValue(fixtures) { try await function() }
    }
}

extension Trait where Self == HostileFixturesTrait {
    /// The fixtures the hostile-database tests copy from, built once for the suite.
    static var hostileFixtures: Self { HostileFixturesTrait() }
}
