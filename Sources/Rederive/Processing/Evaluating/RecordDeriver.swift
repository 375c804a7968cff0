/// Evaluates pending records somewhere other than the runner's own worker threads, for example in
/// worker processes so that a processor that traps ends only its worker process, not the run.
///
/// Set it as ``Runner/Configuration/deriver``. Each of the runner's workers calls it with its own
/// `worker` index, one record at a time, so an implementation can keep one resource per worker.
public protocol RecordDeriver: Sendable {
    /// The result of one record, evaluated as ``RecordResult/init(evaluating:pipeline:codec:)`` does
    /// with a codec of `maximumPayloadSize`. A record it could not evaluate is a result whose outcomes
    /// are failures.
    func result(for record: PendingRecord, pipeline: Pipeline, maximumPayloadSize: Int, worker: Int) async -> RecordResult
}
