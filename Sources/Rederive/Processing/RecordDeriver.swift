/// Derives pending records somewhere other than the runner's own workers, for example in worker
/// processes so that a processor that traps ends only its worker process, not the run.
///
/// Set it as ``Runner/Configuration/deriver``. Each of the runner's workers calls it with its own
/// `worker` index, one record at a time, so an implementation can keep one resource per worker.
public protocol RecordDeriver: Sendable {
    /// Inflates, decodes and derives one record as ``RecordResult/init(deriving:pipeline:codec:)`` does. A record
    /// it could not derive is a result whose outcomes are failures.
    func derive(_ record: PendingRecord, pipeline: Pipeline, maximumPayloadSize: Int, worker: Int) async -> RecordResult
}
