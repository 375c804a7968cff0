import Rederive
import Synchronization

/// The stores one invocation of a command opened, closed before the invocation returns: after an
/// error or an interruption too, so that a SQLite file left behind holds every commit without its `-wal`.
final class OpenedStores: Sendable {
    private let stores = Mutex<[any ClosableStore]>([])

    /// The stores of the invocation running now; nil outside ``RederiveCommand/execute(_:in:)``
    /// (commands mounted in an app's own command line), where a store closes when it is released.
    @TaskLocal static var current: OpenedStores?

    /// Remembers `store`, to close it at the end of the invocation, when it has anything to close.
    func add(_ store: any CommandStore) {
        guard let closable = store as? any ClosableStore else { return }
        stores.withLock { $0.append(closable) }
    }

    /// Closes every store remembered, newest first, and forgets them.
    func closeAll() async {
        let opened = stores.withLock { stores in
            defer { stores = [] }
            return stores
        }
        for store in opened.reversed() {
            await store.close()
        }
    }
}
