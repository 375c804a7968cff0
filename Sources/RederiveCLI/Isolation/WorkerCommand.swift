import ArgumentParser
import Glibc
import Rederive
import RederiveCodec

/// `rederive derive-worker`, hidden: a worker process of `run --isolate`. Reads length-prefixed
/// records on standard input, derives each, and writes its result on standard output, until its
/// input ends. A processor that traps ends this process only; the parent records the crash.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "derive-worker",
        abstract: "Derive records sent on standard input (used by run --isolate).",
        shouldDisplay: false
    )

    @Option(help: "The pipeline whose processors derive the records.")
    var pipeline: String

    @Option(parsing: .unconditional, help: "Fail payloads that inflate to more than this many bytes.")
    var maxPayloadBytes: Int = PayloadCodec.defaultMaximumSize

    func validate() throws {
        try ValueBounds.payloadBytes.check(maxPayloadBytes, "--max-payload-bytes")
    }

    func run() async throws {
        // Ctrl-C reaches the whole process group: the parent stops the run, and its workers end
        // when it closes their input, not mid-record as if they had crashed.
        ProcessSignals.leaveToCommand()
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let pipeline = try CommandEnvironment.current.registry.pipeline(named: pipeline)
        let codec = PayloadCodec(maximumSize: maxPayloadBytes)
        while let frame = Frames.receive(from: 0, maximum: WorkerMessages.maximumFrame) {
            let record = try WorkerMessages.decodeRecord(frame)
            let result = RecordResult(evaluating: record, pipeline: pipeline, codec: codec)
            guard Frames.send(WorkerMessages.encode(result), to: 1) else { break }
        }
    }
}
