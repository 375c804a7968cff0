import Glibc
import Rederive
import Synchronization

/// One worker process of `run --isolate` seen from the parent: the executable re-invoked with the
/// hidden `derive-worker` subcommand, fed records on its standard input and answering on its output.
/// Used by one thread at a time.
final class WorkerProcess {
    let pipeline: String
    let maximumPayloadSize: Int
    private let child: ChildProcess
    /// The worker's standard error: where the Swift runtime says why it trapped.
    private let errors: Int32
    /// Where the parent writes records and reads results.
    private var requests: Int32
    private var answers: Int32

    /// Starts `executable` as a worker: `commandPath` leads to rederive's commands when an app mounts them.
    init(executable: String, commandPath: [String], pipeline: String, maximumPayloadSize: Int) throws(SpawnError) {
        self.pipeline = pipeline
        self.maximumPayloadSize = maximumPayloadSize
        var template = Array("/tmp/rederive-worker-XXXXXX".utf8CString)
        errors = mkstemp(&template)
        guard errors >= 0 else {
            throw SpawnError(description: "cannot create a file for a worker's errors: \(String(cString: strerror(errno)))")
        }
        unlink(&template)
        _ = fcntl(errors, F_SETFD, FD_CLOEXEC)
        let errors = self.errors
        do throws(SpawnError) {
            (child, requests, answers) = try ProcessPipe.spawning.withLock { _ throws(SpawnError) in
                let input = try ProcessPipe()
                let output: ProcessPipe
                do throws(SpawnError) {
                    output = try ProcessPipe()
                } catch {
                    close(input.readEnd)
                    close(input.writeEnd)
                    throw error
                }
                defer {
                    close(input.readEnd)
                    close(output.writeEnd)
                }
                do throws(SpawnError) {
                    let child = try ChildProcess(
                        executable: executable,
                        arguments: commandPath + [
                            "derive-worker", "--pipeline", pipeline, "--max-payload-bytes", String(maximumPayloadSize),
                        ],
                        input: input.readEnd, output: output.writeEnd, error: errors,
                        // The runtime's one-line reason is enough; a backtrace per crash would be slow and loud.
                        environment: ["SWIFT_BACKTRACE": "enable=no"],
                        removing: Self.isDatabaseVariable
                    )
                    return (child, input.writeEnd, output.readEnd)
                } catch {
                    close(input.writeEnd)
                    close(output.readEnd)
                    throw error
                }
            }
        } catch {
            close(errors)
            throw error
        }
    }

    /// Whether a variable of the parent's environment says how to reach a database, which a worker
    /// never does: it derives the records it is sent and never connects. libpq's `PG…` variables
    /// (`$PGPASSWORD`, `$PGPASSFILE`, `$PGSERVICEFILE` and the rest) and `$REDERIVE_DB`, which may hold
    /// a password, stay with the parent, out of the reach of the processors' code.
    static func isDatabaseVariable(_ name: String) -> Bool {
        name.hasPrefix("PG") || name == "REDERIVE_DB"
    }

    /// The worker's process id.
    var processID: Int32 { child.pid }

    /// What became of a record sent to the worker.
    enum Answer {
        case derived(RecordResult)
        /// The worker died or answered nonsense.
        case failed
        /// The worker gave no answer within the timeout; it is still running.
        case timedOut
    }

    /// Sends a record and waits for its result, at most `timeout` when one is given.
    func derive(_ record: PendingRecord, timeout: Duration?) -> Answer {
        guard Frames.send(WorkerMessages.encode(record), to: requests) else { return .failed }
        if let timeout, !answerArrives(within: timeout) { return .timedOut }
        guard let frame = Frames.receive(from: answers, maximum: WorkerMessages.maximumFrame),
              let result = try? WorkerMessages.decodeResult(frame),
              result.recordID == record.recordID
        else { return .failed }
        return .derived(result)
    }

    /// Waits until the worker starts answering (or closes its output), at most `timeout`.
    private func answerArrives(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let milliseconds = Int32(min(Double(Int32.max), (left.secondsValue * 1000).rounded(.up)))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // Let the read report the broken pipe.
        }
    }

    /// Ends a worker that failed: kills it if it still runs, reaps it, and says how it ended, with
    /// the runtime's reason when it trapped ("signal 4 (SIGILL): Fatal error: Index out of range").
    func stop() -> String {
        closePipes()
        // A worker that answered nonsense may still run; one that died ignores the signal.
        child.kill()
        let ending = child.wait()
        defer { close(errors) }
        return "\(ending)" + (lastReason().map { ": \($0)" } ?? "")
    }

    /// The last line the Swift runtime wrote before a trap, without its `file:line: ` prefix.
    private func lastReason() -> String? {
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        lseek(errors, 0, SEEK_SET)
        while case let count = read(errors, &buffer, buffer.count), count > 0 {
            text += buffer[..<count]
            if text.count > 1 << 20 { text.removeFirst(text.count - (1 << 16)) }
        }
        _ = ftruncate(errors, 0)
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        let markers = ["Fatal error", "Precondition failed", "Assertion failed", "Unexpectedly found nil"]
        guard let line = lines.last(where: { line in markers.contains { line.contains($0) } }) else { return nil }
        let marker = markers.compactMap { line.firstRange(of: $0) }.map(\.lowerBound).min() ?? line.startIndex
        return String(line[marker...].prefix(300))
    }

    /// Ends a worker that is done: at the end of its input it exits.
    func finish() {
        closePipes()
        _ = child.wait()
        close(errors)
    }

    private func closePipes() {
        if requests >= 0 { close(requests) }
        if answers >= 0 { close(answers) }
        requests = -1
        answers = -1
    }
}
