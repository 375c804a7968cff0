import Foundation
import RederiveCLI
import Testing

/// What the demo suggests runs as printed: with the binary's path when `rederive` is not on the PATH
/// (after `swift run rederive demo`), with the bare name when it is.
@Suite("the demo's suggestions", .serialized, .timeLimit(.minutes(5)))
struct DemoSuggestionTests {
    /// A search path without rederive on it.
    static let bareSearchPath = "/usr/bin:/bin"

    /// Runs `script` with `sh` in `directory` and with `PATH` as given; the executable and the arguments
    /// follow as "$@".
    func shell(_ script: String, in directory: URL, path: String, arguments: [String], program: String = "rederive") async throws
        -> RederiveProcess.Outcome
    {
        try await RederiveProcess.run(
            arguments, wrapper: ["/usr/bin/env", "PATH=\(path)", "/bin/sh", "-c", #"cd "$0" && "# + script, directory.path],
            in: directory, program: program
        )
    }

    /// The lines under "Try next", without their comments.
    func suggestions(_ output: String) -> [String] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("Try next") }) else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.map { String($0).trimmingCharacters(in: .whitespaces) }
    }

    @Test func withoutRederiveOnThePathEverySuggestionRunsAsPrinted() async throws {
        try await CommandHarness.withHarness { harness in
            let demo = try await shell(#"exec "$@""#, in: harness.directory, path: Self.bareSearchPath, arguments: ["demo", "--count", "100"])
            #expect(demo.status == 0, "\(demo.errors)")
            let executable = try RederiveProcess.executable().resolvingSymlinksInPath().path
            let lines = suggestions(demo.output)
            #expect(lines.count == 5, "\(demo.output)")
            for line in lines {
                // Each line is pasted into a shell as it stands, comment included.
                let outcome = try await RederiveProcess.run(
                    [], wrapper: ["/usr/bin/env", "PATH=\(Self.bareSearchPath)", "/bin/sh", "-c", #"cd "$0" && "# + line, harness.directory.path],
                    in: harness.directory
                )
                let expected: Int32 = line.contains("--retry-failed") ? 3 : 0
                #expect(!outcome.signaled && outcome.status == expected, "\(line): \(outcome.status) \(outcome.errors)")
                #expect(!outcome.errors.contains("not found"), "\(line)")
                let command = try #require(line.split(separator: " ").first)
                #expect(URL(fileURLWithPath: String(command)).resolvingSymlinksInPath().path == executable, "\(line)")
            }
            #expect(demo.output.contains("To type just `rederive`, put it on your PATH"))
        }
    }

    @Test func withRederiveOnThePathSuggestionsUseItsName() async throws {
        try await CommandHarness.withHarness { harness in
            let directory = try RederiveProcess.executable().deletingLastPathComponent().path
            // The shell finds rederive through the PATH, as after installing it.
            let demo = try await shell(
                #"shift; exec rederive "$@""#, in: harness.directory, path: "\(directory):\(Self.bareSearchPath)",
                arguments: ["demo", "--count", "20"]
            )
            #expect(demo.status == 0, "\(demo.errors)")
            let lines = suggestions(demo.output)
            #expect(lines.count == 5)
            #expect(lines.allSatisfy { $0.hasPrefix("rederive ") && $0.contains("--db rederive-demo.sqlite") }, "\(lines)")
            #expect(!demo.output.contains("put it on your PATH"))
            #expect(demo.output.contains("$ rederive run --db rederive-demo.sqlite"))
        }
    }

    @Test func aBuildInTheCurrentDirectoryIsNamedByItsShortPath() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-invocation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let build = root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: build.appendingPathComponent("rederive").path, contents: Data(), attributes: [.posixPermissions: 0o755])
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent(".build/debug").path, withDestinationPath: "x86_64-unknown-linux-gnu/debug"
        )
        let rootPath = root.resolvingSymlinksInPath().path
        // What `swift run` passes as argv[0].
        #expect(Invocation.command(
            invokedAs: ".build/x86_64-unknown-linux-gnu/debug/rederive", searchPath: Self.bareSearchPath, currentDirectory: rootPath
        ) == ".build/debug/rederive")
        #expect(Invocation.command(
            invokedAs: "\(rootPath)/.build/debug/rederive", searchPath: Self.bareSearchPath, currentDirectory: "/"
        ) == "\(rootPath)/.build/debug/rederive")
        // On the PATH, the bare name, however it was started.
        #expect(Invocation.command(
            invokedAs: ".build/debug/rederive", searchPath: "/nowhere:\(build.path)", currentDirectory: rootPath
        ) == "rederive")
        #expect(Invocation.command(invokedAs: "rederive", searchPath: nil, currentDirectory: "/") == "rederive")
        #expect(Invocation.command(invokedAs: "./rederive", searchPath: nil, currentDirectory: build.path) == "./rederive")
    }

    @Test func pathsThatNeedQuotingAreQuoted() {
        #expect(Invocation.quoted("/opt/my tools/rederive") == "'/opt/my tools/rederive'")
        #expect(Invocation.quoted("it's.sqlite") == #"'it'\''s.sqlite'"#)
        #expect(Invocation.quoted("rederive-demo.sqlite") == "rederive-demo.sqlite")
    }
}
