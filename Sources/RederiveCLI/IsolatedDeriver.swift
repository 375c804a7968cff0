import Dispatch
import Glibc
import Rederive
import RederiveCodec
import Synchronization

/// Derives records in worker processes, so that a processor that traps (a force-unwrap of nil, an
/// index out of range, a failed precondition) ends only its worker: the record it was deriving
/// becomes a failure of kind `crash` naming the signal, a new worker takes over, and the run goes on.
///
/// Workers are this executable re-invoked with the hidden `derive-worker` subcommand; they exchange
/// length-prefixed records and results over their standard input and output.
final class IsolatedDeriver: RecordDeriver {
    private let executable: String
    private let slots: [Slot]

    init(parallelism: Int, executable: String) {
        self.executable = executable
        slots = (0..<max(1, parallelism)).map { _ in Slot() }
        // A worker that dies closes its pipe: writing to it must fail, not end the parent.
        signal(SIGPIPE, SIG_IGN)
    }

    /// The running executable, which workers re-invoke.
    static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    func derive(_ batch: [PendingRecord], pipeline: Pipeline, maximumPayloadSize: Int) async -> [RecordResult] {
        let workers = min(slots.count, batch.count)
        guard workers > 0 else { return [] }
        let results = Locked<[RecordResult?]>(Array(repeating: nil, count: batch.count))
        let next = Locked(0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Blocking pipe I/O belongs on threads of its own, not on the cooperative pool.
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: workers) { slot in
                    while true {
                        let index = next.value.withLock { index in
                            defer { index += 1 }
                            return index
                        }
                        guard index < batch.count else { break }
                        let result = self.derive(batch[index], pipeline: pipeline, maximumPayloadSize: maximumPayloadSize, slot: slot)
                        results.value.withLock { $0[index] = result }
                    }
                }
                continuation.resume()
            }
        }
        return results.value.withLock { $0.compactMap { $0 } }
    }

    /// Derives one record on the slot's worker, starting or replacing the worker as needed.
    private func derive(_ record: PendingRecord, pipeline: Pipeline, maximumPayloadSize: Int, slot: Int) -> RecordResult {
        slots[slot].worker.withLock { worker in
            if let current = worker, current.pipeline != pipeline.name || current.maximumPayloadSize != maximumPayloadSize {
                current.finish()
                worker = nil
            }
            let running: WorkerProcess
            do {
                running = try worker ?? WorkerProcess(executable: executable, pipeline: pipeline.name, maximumPayloadSize: maximumPayloadSize)
            } catch {
                return Self.crashed(record, "cannot start a worker process: \(error)")
            }
            if let result = running.derive(record) {
                worker = running
                return result
            }
            let ending = running.stop()
            worker = nil
            return Self.crashed(record, "the worker process deriving this record ended with \(ending)")
        }
    }

    private static func crashed(_ record: PendingRecord, _ message: String) -> RecordResult {
        RecordResult(
            recordID: record.recordID,
            generation: record.generation,
            payloadDigest: record.payload.map(PayloadCodec.digest) ?? 0,
            outcomes: record.staleProcessors.map { ($0, .failed(.crash, message)) }
        )
    }

    /// Ends every worker at the end of the run.
    func shutdown() {
        for slot in slots {
            slot.worker.withLock { worker in
                worker?.finish()
                worker = nil
            }
        }
    }
}

/// One worker's place in the pool; its lock is held while the worker derives.
private final class Slot: Sendable {
    let worker = Mutex<WorkerProcess?>(nil)
}

/// A value shared by the threads deriving one batch.
private final class Locked<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
