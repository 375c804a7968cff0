import Rederive

/// Runs blocking database work off the cooperative thread pool and waits for it.
///
/// Store operations are deliberately not cancellable: a commit or the record of how a run ended
/// must complete even when the run's task is being cancelled. The runner checks for cancellation
/// between batches instead.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingWork.run(work)
}
