import Foundation
import Glibc
import RederiveCLI

/// The `sqlite3` shell as another program using the database: it reads statements from a pipe as
/// they are sent, so that it can take a lock, hold it while a command runs, and let it go.
struct SQLiteShell: Sendable {
    let child: ChildProcess
    /// The write end of the shell's standard input.
    let input: Int32
    let outputPath: String

    static func start(_ database: String, in directory: URL) async throws -> SQLiteShell {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw ProcessError("cannot make a pipe for sqlite3") }
        // Neither end may leak into the other processes the tests start meanwhile.
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let outputPath = directory.appendingPathComponent("\(UUID().uuidString).sqlite3.out").path
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { _ = close(pipe[0]); _ = close(output) }
        guard output >= 0 else { _ = close(pipe[1]); throw ProcessError("cannot open \(outputPath)") }
        do {
            let child = try ChildProcess(executable: "/usr/bin/sqlite3", arguments: [database], input: pipe[0], output: output, error: output)
            return SQLiteShell(child: child, input: pipe[1], outputPath: outputPath)
        } catch {
            _ = close(pipe[1])
            throw error
        }
    }

    /// Sends `statements` and waits (10 s at most) until the shell's output holds `marker`.
    func send(_ statements: String, until marker: String) async throws {
        let bytes = Array(statements.utf8)
        guard write(input, bytes, bytes.count) == bytes.count else { throw ProcessError("cannot write to sqlite3") }
        for _ in 0 ..< 500 {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if output.contains(marker) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ProcessError("sqlite3 did not answer \(marker): \((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")")
    }

    /// Sends the last statements, closes the pipe and reaps the shell.
    func quit(_ statements: String) async {
        let bytes = Array(statements.utf8)
        _ = write(input, bytes, bytes.count)
        _ = close(input)
        let child = self.child
        _ = await withCheckedContinuation { (continuation: CheckedContinuation<ChildProcess.Ending, Never>) in
            Thread.detachNewThread { continuation.resume(returning: child.wait()) }
        }
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}
