import Foundation
import Glibc
import Rederive
import RederiveCLI
import Testing

/// SIGINT and SIGTERM at a random point (seeded, and named on failure) of the commands that move a
/// lot of data, on a generated database of a bounded 2,000 records: the command exits 130 or 143
/// (or as it would have had it finished first), prints no trap or library text, leaves no temporary
/// file, and the database passes `PRAGMA integrity_check` and `rederive status` reads it.
@Suite("signals at random points", .enabled(if: HostileRunner.enabled, HostileRunner.skipReason), .hostileFixtures, .timeLimit(.minutes(20)))
struct HostileSignalTests {
    /// A command interrupted by a signal after a delay.
    struct SignalCase: Sendable, CustomTestStringConvertible {
        let command: String
        let signal: Int32
        let seed: UInt64

        var testDescription: String { "\(command) \(signal == SIGINT ? "SIGINT" : "SIGTERM") seed \(seed)" }

        /// The delay before the signal: anywhere from the command's start to about when it ends.
        var delay: Duration {
            var random = SplitMix64(seed: seed, stream: UInt64(signal))
            return .milliseconds(Int.random(in: 0 ... 1_200, using: &random))
        }

        static let all: [SignalCase] = ["run", "import", "backup", "restore", "export"].flatMap { command in
            [SIGINT, SIGTERM].flatMap { signal in (1 ... 3).map { SignalCase(command: command, signal: signal, seed: $0) } }
        }
    }

    @Test(arguments: SignalCase.all)
    func aSignalAtARandomPointLeavesASoundDatabaseAndNoTemporaryFile(_ signalCase: SignalCase) async throws {
        let violations = try await ProcessSlots.hostile.withSlots {
            try await Self.check(signalCase)
        }
        let known = HostileKnownIssue.covering(signalCase)
        HostileDatabaseTests.record(violations, known: known)
    }

    static func check(_ signalCase: SignalCase) async throws -> [String] {
        let fixtures = try HostileFixtures.shared()
        let directory = fixtures.directory.appendingPathComponent("signals/\(UUID().uuidString)", isDirectory: true)
        let output = directory.appendingPathComponent("out", isDirectory: true)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let large = directory.appendingPathComponent("large.sqlite").path

        // What each command works on and may leave, on success, besides the database.
        let arguments: [String]
        var outputs: [String] = []
        var successes: Set<Int32> = [0]
        switch signalCase.command {
        case "run":
            try FileManager.default.copyItem(atPath: fixtures.large, toPath: database)
            arguments = ["run", "--progress", "none", "--parallel", "2"]
            successes = [0, 3]
        case "import":
            try FileManager.default.copyItem(atPath: fixtures.prepared, toPath: database)
            arguments = ["import", "--parallel", "2", fixtures.largeExports]
            successes = [0, 3]
        case "backup":
            try FileManager.default.copyItem(atPath: fixtures.large, toPath: database)
            arguments = ["backup", "--to", output.appendingPathComponent("backup.sqlite").path]
            outputs = ["out/backup.sqlite"]
        case "restore":
            try FileManager.default.copyItem(atPath: fixtures.prepared, toPath: database)
            try FileManager.default.copyItem(atPath: fixtures.large, toPath: large)
            arguments = ["restore", large]
        default:
            try FileManager.default.copyItem(atPath: fixtures.large, toPath: database)
            arguments = ["export", output.appendingPathComponent("export").path]
            outputs = ["out/export"]
            successes = [0, 3]
        }
        let listingBefore = HostileFiles.listing(directory)

        let process = try RederiveProcess.start(
            arguments + ["--db", database], wrapper: ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path], in: fixtures.scratch,
            environment: HostileRunner.environment
        )
        try await Task.sleep(for: signalCase.delay)
        _ = Glibc.kill(process.child.pid, signalCase.signal)
        let ending = try await HostileRunner.wait(for: process, within: HostileRunner.commandTimeout)
        let outcome = ending.outcome

        var violations: [String] = []
        if ending.hung { violations.append("hung after the signal: killed after \(HostileRunner.commandTimeout)") }
        if outcome.signaled && !ending.hung { violations.append("ended by signal \(outcome.status)") }
        let interrupted: Set<Int32> = signalCase.signal == SIGINT ? [130] : [143]
        if !outcome.signaled && !interrupted.union(successes).contains(outcome.status) {
            violations.append("exit status \(outcome.status), expected \(interrupted.sorted()) or, finished first, \(successes.sorted())")
        }
        violations += HostileRunner.problems(inErrors: outcome.errors, status: outcome.status, signaled: outcome.signaled, isWatch: false)

        let finished = !outcome.signaled && successes.contains(outcome.status)
        // An interrupted export keeps the files it finished; an interrupted backup leaves none.
        let command = HostileCommand(name: signalCase.command, arguments: arguments, access: .reads, successes: successes, outputs: outputs)
        let leftBehind = HostileFiles.listing(directory).subtracting(listingBefore)
            .filter { !HostileRunner.isOutput($0, of: command, succeeded: finished) }
        if !leftBehind.isEmpty { violations.append("left behind: \(leftBehind.sorted().prefix(5).joined(separator: ", "))") }

        let integrity = HostileFiles.integrity(database)
        if integrity != "ok" { violations.append("integrity_check of the database: \(integrity)") }
        let backup = output.appendingPathComponent("backup.sqlite").path
        if FileManager.default.fileExists(atPath: backup), HostileFiles.integrity(backup) != "ok" {
            violations.append("integrity_check of the backup: \(HostileFiles.integrity(backup))")
        }
        let status = try await RederiveProcess.run(["status", "--db", database], in: fixtures.scratch)
        if status.signaled || status.status != 0 { violations.append("status afterwards exits \(status.status): \(status.errors)") }

        let commandLine = "rederive " + arguments.joined(separator: " ")
        return violations.map {
            """
            \(signalCase.signal == SIGINT ? "SIGINT" : "SIGTERM") after \(signalCase.delay) (seed \(signalCase.seed)) to `\(commandLine)`: \($0)
              exit \(outcome.signaled ? "by signal " : "")\(outcome.status); stderr: \(outcome.errors.isEmpty ? "(empty)" : String(outcome.errors.prefix(600)))
            """
        }
    }
}
