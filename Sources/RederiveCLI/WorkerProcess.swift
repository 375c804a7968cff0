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
    /// Where the parent writes records and reads results.
    private var requests: Int32
    private var answers: Int32

    init(executable: String, pipeline: String, maximumPayloadSize: Int) throws(SpawnError) {
        self.pipeline = pipeline
        self.maximumPayloadSize = maximumPayloadSize
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
                    arguments: ["derive-worker", "--pipeline", pipeline, "--max-payload-bytes", String(maximumPayloadSize)],
                    input: input.readEnd, output: output.writeEnd, error: 2
                )
                return (child, input.writeEnd, output.readEnd)
            } catch {
                close(input.writeEnd)
                close(output.readEnd)
                throw error
            }
        }
    }

    /// Sends a record and waits for its result; nil when the worker died or answered nonsense.
    func derive(_ record: PendingRecord) -> RecordResult? {
        guard Frames.send(WorkerMessages.encode(record), to: requests),
              let frame = Frames.receive(from: answers, maximum: WorkerMessages.maximumFrame),
              let result = try? WorkerMessages.decodeResult(frame),
              result.recordID == record.recordID
        else { return nil }
        return result
    }

    /// Ends a worker that failed: kills it if it still runs, reaps it, and says how it ended.
    func stop() -> ChildProcess.Ending {
        closePipes()
        // A worker that answered nonsense may still run; one that died ignores the signal.
        child.kill()
        return child.wait()
    }

    /// Ends a worker that is done: at the end of its input it exits.
    func finish() {
        closePipes()
        _ = child.wait()
    }

    private func closePipes() {
        if requests >= 0 { close(requests) }
        if answers >= 0 { close(answers) }
        requests = -1
        answers = -1
    }
}
