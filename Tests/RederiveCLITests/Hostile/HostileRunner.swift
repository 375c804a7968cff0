import Foundation
import Glibc
import Testing

/// One case of the hostile-database matrix: a command on a database of a shape, in a state.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let shape: HostileDatabaseShape
    let state: HostileDatabaseState
    let command: HostileCommand

    var testDescription: String { "\(shape) \(state) \(command.name)" }

    /// Every command on every shape, and every command in every other state on the prepared database.
    static let all: [HostileCase] =
        HostileDatabaseShape.allCases.flatMap { shape in HostileCommand.all.map { HostileCase(shape: shape, state: .normal, command: $0) } }
        + HostileDatabaseState.allCases.filter { $0 != .normal }.flatMap { state in
            HostileCommand.all.map { HostileCase(shape: .prepared, state: state, command: $0) }
        }
}

/// Runs one ``HostileCase`` with the built `rederive` in a fresh directory and checks the invariants
/// every case shares, and the case's ``HostileExpectation``. Returns what was violated, each as a
/// message naming the shape, state, command, exit status and standard error.
enum HostileRunner {
    /// The longest a command may take before it is killed and its case fails as hanging.
    static let commandTimeout: Duration = .seconds(20)

    /// The harness runs hundreds of processes: with `REDERIVE_HOSTILE=1`, as `.ci/run` runs it in a
    /// step of its own, so that the timing of the suites in `swift test` is not its load's.
    static let enabled = ProcessInfo.processInfo.environment["REDERIVE_HOSTILE"] == "1"
    static let skipReason: Comment = "the hostile-database harness runs with REDERIVE_HOSTILE=1 (.ci/run's own step)"
    /// How long `watch` runs before it is sent SIGTERM.
    static let watchFor: Duration = .milliseconds(1_500)

    /// How a process ended, or that it was killed for taking too long.
    struct Ending: Sendable {
        let outcome: RederiveProcess.Outcome
        let hung: Bool
    }

    /// The environment the commands run with: a trap ends the process by its signal at once, without
    /// the second or so a backtrace takes (the signal is what the invariant checks).
    static let environment = ["SWIFT_BACKTRACE": "enable=no"]

    /// Waits for `process` to end, or `limit` to pass; killing it if the test is cancelled meanwhile.
    static func waitUntilEnded(_ process: RederiveProcess, atMost limit: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while !process.hasEnded && clock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                process.kill()
                _ = try? await process.wait()
                throw error
            }
        }
    }

    /// Waits for `process` to end, killing it with SIGKILL after `limit`, or when the test is cancelled
    /// (its time limit), so that no process outlives its case.
    static func wait(for process: RederiveProcess, within limit: Duration) async throws -> Ending {
        try await waitUntilEnded(process, atMost: limit)
        let hung = !process.hasEnded
        if hung { process.kill() }
        return Ending(outcome: try await process.wait(), hung: hung)
    }

    /// Text that must never reach a user: SQL, library type names and dumps, traps and backtraces.
    static var libraryText: [Regex<Substring>] {
        [
            #/SQLite error/#, #/GRDB/#, #/grdb/#, #/NSCocoaErrorDomain/#, #/Error Domain=/#, #/NSError/#, #/NSPOSIX/#, #/Foundation\./#,
            #/\bNIO\w*/#, #/CancellationError/#, #/DatabaseError/#, #/while executing/#,
            #/\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM|BEGIN|COMMIT|PRAGMA|CREATE TABLE) /#,
            #/Fatal error/#, #/Backtrace/#, #/Thread \d+ crashed/#, #/\.swift:\d+/#, #/\bErrno\b/#, #/(?:^|\n)Error:/#,
        ]
    }

    /// What is wrong with a command's standard error: library text, or, for a refusal, anything but one `rederive:` line.
    static func problems(inErrors errors: String, status: Int32, signaled: Bool, isWatch: Bool) -> [String] {
        var problems: [String] = []
        let found = libraryText.compactMap { errors.firstMatch(of: $0).map { String($0.output).trimmingCharacters(in: .whitespacesAndNewlines) } }
        if !found.isEmpty { problems.append("standard error holds library or SQL text: \(found.joined(separator: ", "))") }
        let lines = errors.split(separator: "\n", omittingEmptySubsequences: false).dropLast(errors.hasSuffix("\n") ? 1 : 0)
        if !signaled && (status == 1 || status == 64) {
            if lines.count != 1 { problems.append("a refusal must be one line on standard error, not \(lines.count)") }
        }
        if !isWatch, !signaled, let stray = lines.first(where: { !$0.isEmpty && !$0.hasPrefix("rederive: ") }) {
            problems.append("a line on standard error does not start with `rederive: `: \(stray)")
        }
        return problems
    }

    /// Whether `path` is something `command` may leave: its outputs when it succeeded; of an export
    /// that stopped early, the directory and the files it finished, never a temporary one.
    static func isOutput(_ path: String, of command: HostileCommand, succeeded: Bool) -> Bool {
        command.outputs.contains { output in
            guard path == output || path == output + "/" || path.hasPrefix(output + "/") else { return false }
            if succeeded { return true }
            let name = URL(fileURLWithPath: path).lastPathComponent
            return command.name == "export" && (path == output + "/" || (!name.hasPrefix(".") && name.hasSuffix(".json")))
        }
    }

    /// Runs the case and returns its violations.
    static func check(_ testCase: HostileCase) async throws -> [String] {
        try await ProcessSlots.hostile.withSlots {
            try await withCaseDirectory { directory in try await check(testCase, in: directory) }
        }
    }

    private static func withCaseDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let fixtures = try HostileFixtures.shared()
        let directory = fixtures.directory.appendingPathComponent("cases/\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            chmod(directory.appendingPathComponent("data").path, 0o777)
            try? FileManager.default.removeItem(at: directory)
        }
        return try await body(directory)
    }

    private static func check(_ testCase: HostileCase, in directory: URL) async throws -> [String] {
        let (shape, state) = (testCase.shape, testCase.state)
        let fixtures = try HostileFixtures.shared()
        let data = directory.appendingPathComponent("data", isDirectory: true)
        let output = directory.appendingPathComponent("out", isDirectory: true)
        let inputs = directory.appendingPathComponent("in", isDirectory: true)
        for folder in [data, output, inputs] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o777)
        }
        try FileManager.default.copyItem(atPath: fixtures.prepared, toPath: inputs.appendingPathComponent("backup.sqlite").path)
        try FileManager.default.copyItem(atPath: fixtures.exports, toPath: inputs.appendingPathComponent("exports").path)
        let database = data.appendingPathComponent("db.sqlite").path
        try FileManager.default.copyItem(atPath: try await fixtures.shapes.shape(shape, fixtures: fixtures).path, toPath: database)

        let bytesBefore = HostileFiles.bytes(database)
        let modeBefore = ReadOnlyFiles.journalMode(database)
        let listingBefore = HostileFiles.listing(directory)
        let holder = try await state.enter(database, data: data, fixtures: fixtures)
        do {
            return try await check(testCase, database: database, in: directory, holder: holder, before: (bytesBefore, modeBefore, listingBefore))
        } catch {
            _ = try? await holder.end()
            throw error
        }
    }

    /// Runs the command with the state entered, ends the state, and checks what the command did.
    private static func check(
        _ testCase: HostileCase, database: String, in directory: URL, holder: HostileDatabaseState.Holder,
        before: (bytes: Data?, mode: String, listing: Set<String>)
    ) async throws -> [String] {
        let (shape, state, command) = (testCase.shape, testCase.state, testCase.command)
        let fixtures = try HostileFixtures.shared()
        let output = directory.appendingPathComponent("out", isDirectory: true)
        let inputs = directory.appendingPathComponent("in", isDirectory: true)
        let (bytesBefore, modeBefore, listingBefore) = before
        let arguments = command.arguments.map {
            $0.replacingOccurrences(of: "OUT/", with: output.path + "/").replacingOccurrences(of: "IN/", with: inputs.path + "/")
        } + ["--db", database, "--busy-timeout", "1"]
        let process = try RederiveProcess.start(arguments, wrapper: state.wrapper(in: directory), in: fixtures.scratch, environment: environment)
        if command.runsUntilStopped {
            try await waitUntilEnded(process, atMost: watchFor)
            if !process.hasEnded { process.terminate() }
        }
        let ending = try await wait(for: process, within: commandTimeout)
        let helper = try await holder.end()

        let outcome = ending.outcome
        let expectation = HostileExpectation.of(command, on: shape, in: state)
        var violations: [String] = []
        if ending.hung { violations.append("hung: killed after \(commandTimeout)") }
        if outcome.signaled && !ending.hung { violations.append("ended by signal \(outcome.status)") }
        if !ending.hung && !outcome.signaled && !expectation.statuses.contains(outcome.status) {
            violations.append("exit status \(outcome.status), expected one of \(expectation.statuses.sorted())")
        }
        violations += problems(inErrors: outcome.errors, status: outcome.status, signaled: outcome.signaled, isWatch: command.runsUntilStopped)
        if outcome.status == HostileExpectation.refusal && !outcome.signaled && !command.successes.contains(outcome.status)
            && !expectation.refusalMentions.isEmpty
            && !expectation.refusalMentions.contains(where: { outcome.errors.lowercased().contains($0) }) {
            violations.append("the refusal does not say why (it should mention one of \(expectation.refusalMentions))")
        }
        let refused = outcome.status == HostileExpectation.refusal && !outcome.signaled
        if expectation.changesNothing || (refused && state != .leased) {
            if HostileFiles.bytes(database) != bytesBefore { violations.append("the database file changed") }
            let mode = ReadOnlyFiles.journalMode(database)
            if mode != modeBefore { violations.append("the journal mode changed from \(modeBefore) to \(mode)") }
        }
        let succeeded = !outcome.signaled && command.successes.contains(outcome.status)
        let leftBehind = HostileFiles.listing(directory).subtracting(listingBefore)
            .filter { path in !isOutput(path, of: command, succeeded: succeeded) }
            // Past the file size limit the checkpoint at close cannot copy the log into the file: the
            // -wal then holds commits, and removing it would lose them.
            .filter { path in !(state == .fullDisk && (path.hasSuffix(".sqlite-wal") || path.hasSuffix(".sqlite-shm"))) }
        if !leftBehind.isEmpty { violations.append("left behind: \(leftBehind.sorted().joined(separator: ", "))") }
        let gone = listingBefore.subtracting(HostileFiles.listing(directory))
        if !gone.isEmpty { violations.append("removed: \(gone.sorted().joined(separator: ", "))") }
        if let helper, helper.hung || helper.outcome.signaled || helper.outcome.status != 0 {
            violations.append("the watcher holding the lease ended \(helper.outcome.status)\(helper.hung ? " (hung)" : ""): \(helper.outcome.errors)")
        }

        let commandLine = "rederive " + command.arguments.joined(separator: " ")
        return violations.map {
            """
            shape \(shape), state \(state), `\(commandLine)`: \($0)
              exit \(outcome.signaled ? "by signal " : "")\(outcome.status); rule: \(expectation.rule)
              stderr: \(outcome.errors.isEmpty ? "(empty)" : String(outcome.errors.prefix(600)))
            """
        }
    }
}
