import Foundation
import Glibc
import RederiveCLI
import RederiveTestSupport

/// The already built `rederive` executable, run as a child process the way a user or a cron job
/// runs it, so that it can be killed, locked out or starved of disk.
struct RederiveProcess {
    /// The outcome of a finished process.
    struct Outcome {
        let status: Int32
        /// Whether the process ended by a signal (then `status` is the signal) rather than by exiting.
        let signaled: Bool
        let output: String
        let errors: String
    }

    /// Where the build put `rederive` (or another product): next to the test bundle, in the products directory.
    static func executable(_ name: String = "rederive") throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL,
            PackageRoot.appending(".build/debug"),
        ].map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ProcessError("the \(name) executable is not built; run `swift build` first (looked in \(candidates.map(\.path)))")
        }
        return found
    }

    let child: ChildProcess
    private let outputPath: String
    private let errorsPath: String

    /// Starts `program arguments`, optionally through a wrapper command (`/bin/sh -c ...`,
    /// `/usr/bin/setpriv ...`) that ends by running its remaining arguments, with `environment`'s
    /// variables added to this process's.
    static func start(
        _ arguments: [String], wrapper: [String] = [], in directory: URL, program: String = "rederive",
        environment: [String: String] = [:]
    ) throws -> RederiveProcess {
        let executable = try executable(program).path
        let name = UUID().uuidString
        let outputPath = directory.appendingPathComponent("\(name).out").path
        let errorsPath = directory.appendingPathComponent("\(name).err").path
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let errors = open(errorsPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { [input, output, errors].forEach { _ = close($0) } }
        guard input >= 0, output >= 0, errors >= 0 else { throw ProcessError("cannot open the output files in \(directory.path)") }
        let child = try ChildProcess(
            executable: wrapper.first ?? executable,
            arguments: wrapper.isEmpty ? arguments : Array(wrapper.dropFirst()) + [executable] + arguments,
            input: input, output: output, error: errors, environment: environment
        )
        return RederiveProcess(child: child, outputPath: outputPath, errorsPath: errorsPath)
    }

    /// Runs `program arguments` to its end, with `environment`'s variables added to this process's.
    static func run(
        _ arguments: [String], wrapper: [String] = [], in directory: URL, program: String = "rederive",
        environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await start(arguments, wrapper: wrapper, in: directory, program: program, environment: environment).wait()
    }

    /// Waits, off the cooperative pool, for the process to end, and reaps it. Call once.
    func wait() async throws -> Outcome {
        let child = self.child
        let ending = await withCheckedContinuation { (continuation: CheckedContinuation<ChildProcess.Ending, Never>) in
            Thread.detachNewThread { continuation.resume(returning: child.wait()) }
        }
        let output = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
        let errors = String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorsPath)), as: UTF8.self)
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorsPath)
        switch ending {
        case .exited(let status): return Outcome(status: status, signaled: false, output: output, errors: errors)
        case .signaled(let signal): return Outcome(status: signal, signaled: true, output: output, errors: errors)
        }
    }

    /// What the process has written to standard error so far.
    func errorsSoFar() -> String {
        (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
    }

    /// Sends SIGINT, as Ctrl-C in a terminal does.
    func interrupt() {
        _ = Glibc.kill(child.pid, SIGINT)
    }

    /// Sends SIGTERM, as a service manager stopping it does.
    func terminate() {
        _ = Glibc.kill(child.pid, SIGTERM)
    }

    /// What the process has written to standard output so far; the last line may be incomplete.
    func outputSoFar() throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
    }

    /// Whether the process has ended, without reaping it: ``wait()`` still collects how it ended.
    var hasEnded: Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo == SIGCHLD
    }

    /// Waits until what the process has written to standard output satisfies `condition`, or the
    /// process has ended, and returns that output.
    func waitForOutput(where condition: (String) -> Bool) async throws -> String {
        while true {
            let ended = hasEnded
            let output = try outputSoFar()
            if ended || condition(output) { return output }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Kills the process with SIGKILL: no handler, no cleanup, as a power cut or the OOM killer would.
    /// Harmless when it already ended: it is not reaped before ``wait()``.
    func kill() {
        child.kill()
    }
}

struct ProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
