import Synchronization

/// Decides, once and for all, whether an import is abandoned or committed: a Ctrl-C that comes
/// before the last file was handed to the store abandons it, and nothing is written; one that comes
/// after finds the transaction committing, and says so instead of promising that nothing is written.
package final class ImportCommitGate: Sendable {
    private static let open: UInt8 = 0
    private static let abandoned: UInt8 = 1
    private static let committing: UInt8 = 2
    private let state = Atomic<UInt8>(ImportCommitGate.open)

    /// A gate that neither abandoned nor committed yet.
    package init() {}

    /// Abandons the import unless it is committing already; true when it is abandoned (now or before).
    package func abandon() -> Bool {
        let (exchanged, original) = state.compareExchange(expected: Self.open, desired: Self.abandoned, ordering: .sequentiallyConsistent)
        return exchanged || original == Self.abandoned
    }

    /// Whether the import was abandoned: what it wrote was rolled back, whatever error the store then threw.
    package var isAbandoned: Bool { state.load(ordering: .sequentiallyConsistent) == Self.abandoned }

    /// Lets the import commit unless it was abandoned; throws `CancellationError` when it was, so
    /// that the store rolls its transaction back.
    package func beginCommit() throws {
        let (exchanged, original) = state.compareExchange(expected: Self.open, desired: Self.committing, ordering: .sequentiallyConsistent)
        guard exchanged || original == Self.committing else { throw CancellationError() }
    }
}
