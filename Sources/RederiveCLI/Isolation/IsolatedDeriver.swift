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
    private let commandPath: [String]
    private let slots: [Slot]
    /// How long a worker process may spend on one record before it is stopped and replaced.
    private let timeout: Duration?

    init(parallelism: Int, executable: String, commandPath: [String], timeout: Duration? = nil) {
        self.executable = executable
        self.commandPath = commandPath
        self.timeout = timeout
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

    func result(for record: PendingRecord, pipeline: Pipeline, maximumPayloadSize: Int, worker: Int) async -> RecordResult {
        let slot = worker % slots.count
        // Blocking pipe I/O belongs on threads of its own, not on the cooperative pool.
        return await BlockingWork.run { self.derive(record, pipeline: pipeline, maximumPayloadSize: maximumPayloadSize, slot: slot) }
    }

    /// Derives one record on the slot's worker, starting or replacing the worker as needed.
    private func derive(_ record: PendingRecord, pipeline: Pipeline, maximumPayloadSize: Int, slot: Int) -> RecordResult {
        slots[slot].worker.withLock { worker in
            if worker == nil {
                slots[slot].processID.store(0, ordering: .releasing)
            }
            if let current = worker, current.pipeline != pipeline.name || current.maximumPayloadSize != maximumPayloadSize {
                current.finish()
                worker = nil
            }
            let running: WorkerProcess
            do {
                running = try worker ?? WorkerProcess(executable: executable, commandPath: commandPath, pipeline: pipeline.name, maximumPayloadSize: maximumPayloadSize)
            } catch {
                return Self.failed(record, .crash, "cannot start a worker process: \(error)")
            }
            slots[slot].processID.store(running.processID, ordering: .releasing)
            switch running.derive(record, timeout: timeout) {
            case .derived(let result):
                worker = running
                return result
            case .failed:
                let ending = running.stop()
                worker = nil
                return Self.failed(record, .crash, "the worker process deriving this record ended with \(ending)")
            case .timedOut:
                _ = running.stop()
                worker = nil
                let seconds = timeout.map { Format.setting($0.secondsValue) } ?? ""
                return Self.failed(record, .timeout, "deriving took longer than the \(seconds) timeout; its worker process was stopped")
            }
        }
    }

    private static func failed(_ record: PendingRecord, _ kind: FailureKind, _ message: String) -> RecordResult {
        RecordResult(
            recordID: record.recordID,
            generation: record.generation,
            payloadDigest: record.payload.map(PayloadCodec.digest) ?? 0,
            outcomes: record.staleProcessors.map { ($0, .failed(kind, message)) }
        )
    }

    /// Ends every worker at the end of the run. A worker still deriving (a record abandoned when the
    /// run was interrupted, in a processor that hangs) is killed: it ignores SIGINT, and would
    /// otherwise outlive the run.
    func shutdown() {
        for slot in slots {
            let finished: Void? = slot.worker.withLockIfAvailable { worker in
                worker?.finish()
                worker = nil
            }
            // Zero while a worker is being started: kill(0, …) would signal this whole process group.
            let processID = slot.processID.load(ordering: .acquiring)
            if finished == nil, processID > 0 {
                _ = kill(processID, SIGKILL)
            }
        }
    }
}

/// One worker's place in the pool; its lock is held while the worker derives.
private final class Slot: Sendable {
    let worker = Mutex<WorkerProcess?>(nil)
    /// The process id of the slot's latest worker, to kill it while it derives.
    let processID = Atomic<Int32>(0)
}
