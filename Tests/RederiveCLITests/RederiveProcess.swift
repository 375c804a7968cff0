import Foundation
import Testing

/// The already built `rederive` executable, run as a child process the way a user or a cron job
/// runs it, so that it can be killed, locked out or starved of disk.
struct RederiveProcess {
    /// The outcome of a finished process.
    struct Outcome {
        let status: Int32
        /// Whether the process ended by a signal rather than by exiting.
        let signaled: Bool
        let output: String
        let errors: String
    }

    /// Where the build put `rederive`: next to the test bundle, in the products directory.
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("rederive") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ProcessError("the rederive executable is not built; run `swift build` first (looked in \(candidates.map(\.path)))")
        }
        return found
    }

    let process: Process
    private let outputURL: URL
    private let errorsURL: URL

    /// Starts `rederive arguments`, optionally through a wrapper command (`prlimit ...`, `setpriv ...`)
    /// that ends by running its remaining arguments.
    static func start(_ arguments: [String], wrapper: [String] = [], in directory: URL) throws -> RederiveProcess {
        let executable = try executable()
        let process = Process()
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst()) + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        let name = UUID().uuidString
        let outputURL = directory.appendingPathComponent("\(name).out")
        let errorsURL = directory.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorsURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return RederiveProcess(process: process, outputURL: outputURL, errorsURL: errorsURL)
    }

    /// Runs `rederive arguments` to its end.
    static func run(_ arguments: [String], wrapper: [String] = [], in directory: URL) async throws -> Outcome {
        try await start(arguments, wrapper: wrapper, in: directory).wait()
    }

    /// Waits off the cooperative pool for the process to end.
    func wait() async throws -> Outcome {
        let process = self.process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        let output = String(decoding: try Data(contentsOf: outputURL), as: UTF8.self)
        let errors = String(decoding: try Data(contentsOf: errorsURL), as: UTF8.self)
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorsURL)
        return Outcome(
            status: process.terminationStatus,
            signaled: process.terminationReason == .uncaughtSignal,
            output: output,
            errors: errors
        )
    }

    var isRunning: Bool { process.isRunning }

    /// Kills the process with SIGKILL: no handler, no cleanup, as a power cut or the OOM killer would.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }
}

struct ProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
