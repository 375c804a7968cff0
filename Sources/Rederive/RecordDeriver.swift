/// Derives a batch of pending records somewhere other than the runner's own workers, for example in
/// worker processes so that a processor that traps ends only its worker, not the run.
///
/// Set it as ``Runner/Configuration/deriver``. It must return one result per record, in the batch's
/// order; a record it could not derive is a result whose outcomes are failures.
public protocol RecordDeriver: Sendable {
    /// Inflates, decodes and derives each record of `batch` as ``Runner/derive(_:pipeline:codec:)`` does.
    func derive(_ batch: [PendingRecord], pipeline: Pipeline, maximumPayloadSize: Int) async -> [RecordResult]
}
