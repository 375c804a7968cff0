import Rederive
import Synchronization

/// The stores one invocation of a command opened, closed before the invocation returns: after an
/// error or an interruption too, so that a SQLite file left behind holds every commit without its `-wal`.
final class OpenedStores: Sendable {
    private let stores = Mutex<[any RecordStore]>([])

    /// The stores of the invocation running now; nil outside ``RederiveCommand/execute(_:in:)``
    /// (commands mounted in an app's own command line), where a store closes when it is released.
    @TaskLocal static var current: OpenedStores?

    /// Remembers `store`, to close it at the end of the invocation.
    func add(_ store: any RecordStore) {
        stores.withLock { $0.append(store) }
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
