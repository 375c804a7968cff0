#if PostgreSQL
import Synchronization

/// Whether a transaction's COMMIT was sent to the server: a connection lost before it rolled the
/// transaction back, and trying again stores nothing twice; one lost after it left the outcome to
/// the server alone.
final class CommitSent: Sendable {
    private let sent = Atomic<Bool>(false)

    /// Marks COMMIT as sent, just before it is.
    func mark() {
        sent.store(true, ordering: .sequentiallyConsistent)
    }

    /// Whether COMMIT was sent.
    var wasSent: Bool {
        sent.load(ordering: .sequentiallyConsistent)
    }
}
#endif
