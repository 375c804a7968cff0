import Foundation
import Glibc
import RederiveCLI
import Testing

/// The progress bar in a real terminal: `rederive run` inside tmux panes 40, 80 and 200 columns wide,
/// read back with `tmux capture-pane`. A line as wide as the pane wraps, and then every redraw leaves
/// a copy behind on the screen; a bar that fits leaves exactly one bar line.
@Suite("progress bar in a terminal", .serialized, .timeLimit(.minutes(5)), .enabled(if: Tmux.testsRun, Tmux.skipReason))
struct TerminalProgressTests {
    static let records = 1_000

    @Test(arguments: [40, 80, 200])
    func theBarFitsThePaneAndLeavesOneLine(columns: Int) async throws {
        guard let tmux = try Tmux.start(columns: columns, running: Self.barRun(rate: 1_000)) else { return }
        defer { tmux.stop() }
        try Self.expectOneBar(try await tmux.waitForTheEnd(), columns: columns)
    }

    @Test func theBarFollowsTheTerminalWhenItNarrows() async throws {
        guard let tmux = try Tmux.start(columns: 200, running: Self.barRun(rate: 250)) else { return }
        defer { tmux.stop() }
        // Once the bar is drawing at 200 columns, the pane narrows to 40: SIGWINCH tells the bar.
        try await tmux.waitFor(timeout: .seconds(90)) { $0.contains { $0.contains("records to derive") } }
        try await Task.sleep(for: .milliseconds(800))
        try tmux.resize(columns: 40)
        try Self.expectOneBar(try await tmux.waitForTheEnd(), columns: 40)
    }

    /// A script that builds a database with some broken records (a few dozen failures, so that the
    /// failure count has two digits), derives it with the bar slowly enough to redraw often, and
    /// prints its exit status.
    static func barRun(rate: Int) throws -> String {
        let rederive = try RederiveProcess.executable().path
        return """
            \(rederive) generate --db bar.sqlite --count \(records) --corrupt 0.03 >/dev/null
            \(rederive) run --db bar.sqlite --progress bar --batch-size 20 --max-rate \(rate) >/dev/null
            echo "exit $?"
            sleep 600

            """
    }

    /// The pane holds the run's header and one bar line, finished, and no line fills the pane's width.
    static func expectOneBar(_ screen: [String], columns: Int) throws {
        let bars = screen.filter { $0.contains("/1,000") }
        #expect(bars.count == 1, "\(columns) columns:\n\(screen.joined(separator: "\n"))")
        let bar = try #require(bars.last)
        #expect(bar.contains("1,000/1,000"), "\(bar)")
        if columns >= 80 {
            #expect(bar.contains("failures") && bar.contains("ETA") && bar.contains("rec/s") && bar.contains("█"), "\(bar)")
        } else {
            #expect(bar.contains("failures"), "\(bar)")
        }
        for line in screen {
            #expect(line.count < columns, "\(columns) columns: a line fills the pane: \(line)")
        }
        #expect(screen.contains("exit 3"), "\(screen.joined(separator: "\n"))")
    }
}

/// A tmux server of its own, with one pane of a given size that runs a script, to read back.
struct Tmux {
    static let executable = "/usr/bin/tmux"

    let directory: URL
    let socket: String

    /// Whether the terminal tests run: tmux is installed, or it is required (`.ci/run` sets
    /// `REDERIVE_REQUIRE_TMUX=1`, and then its absence fails the tests rather than skipping them).
    static var testsRun: Bool {
        FileManager.default.isExecutableFile(atPath: executable)
            || ProcessInfo.processInfo.environment["REDERIVE_REQUIRE_TMUX"] == "1"
    }

    static let skipReason: Comment = "tmux is not installed (apt-get install tmux; set REDERIVE_REQUIRE_TMUX=1 to fail instead)"

    /// A server with a `columns`-wide pane that runs `script` with /bin/sh in a directory of its own;
    /// nil, with an issue recorded, when tmux is required but not installed (apt package `tmux`).
    static func start(columns: Int, running script: String) throws -> Tmux? {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            Issue.record("tmux is not installed (apt-get install tmux): the progress bar cannot be tested in a real terminal")
            return nil
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-tmux-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scriptPath = directory.appendingPathComponent("run.sh").path
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath))
        let tmux = Tmux(directory: directory, socket: directory.appendingPathComponent("socket").path)
        try tmux.command([
            "-f", "/dev/null", "new-session", "-d", "-s", "bar", "-x", String(columns), "-y", "24",
            "-c", directory.path, "/bin/sh \(scriptPath)",
            ";", "set-option", "-g", "window-size", "manual",
            ";", "set-option", "-g", "status", "off",
        ])
        try tmux.resize(columns: columns)
        return tmux
    }

    /// Sets the pane's width; tmux sends the program in it SIGWINCH.
    func resize(columns: Int) throws {
        try command(["resize-window", "-t", "bar", "-x", String(columns), "-y", "24"])
    }

    /// The screen once the script has printed its exit status.
    func waitForTheEnd() async throws -> [String] {
        try await waitFor(timeout: .seconds(120)) { $0.contains { $0.hasPrefix("exit ") } }
    }

    /// Polls the screen until `condition` holds.
    @discardableResult
    func waitFor(timeout: Duration, _ condition: ([String]) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let screen = try capture()
            if condition(screen) { return screen }
            guard ContinuousClock.now < deadline else {
                throw ProcessError("the pane did not show what was awaited within \(timeout):\n\(screen.joined(separator: "\n"))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The pane's lines as the terminal shows them (a wrapped line as several), blank ones dropped.
    func capture() throws -> [String] {
        try command(["capture-pane", "-p", "-t", "bar"])
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    func stop() {
        _ = try? command(["kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs tmux with `arguments` on this server and returns what it printed.
    @discardableResult
    func command(_ arguments: [String]) throws -> String {
        let output = directory.appendingPathComponent("tmux-\(UUID().uuidString).out").path
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let out = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            _ = close(input)
            _ = close(out)
            try? FileManager.default.removeItem(atPath: output)
        }
        let child = try ChildProcess(
            executable: Self.executable, arguments: ["-u", "-S", socket] + arguments, input: input, output: out, error: out,
            environment: ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm-256color"]
        )
        let ending = child.wait()
        let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data(), as: UTF8.self)
        guard ending == .exited(0) else { throw ProcessError("tmux \(arguments.joined(separator: " ")): \(ending): \(text)") }
        return text
    }
}
