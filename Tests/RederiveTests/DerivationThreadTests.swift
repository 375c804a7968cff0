@testable import Rederive
import Foundation
import Synchronization
import Testing

/// A derivation thread lets go of its work, and of all the work holds, before the task waiting for
/// it goes on: once a run returns, no thread of it still holds its store.
@Suite struct DerivationThreadTests {
    final class Flag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// Held by the work; slow to end, as a store closing its connections, and says when it has.
    final class Held: Sendable {
        let ended: Flag
        init(_ ended: Flag) { self.ended = ended }
        deinit {
            // Had the thread let go only after its waiter went on, the waiter would find this not
            // yet ended.
            usleep(200_000)
            ended.set()
        }
    }

    @Test func theWorkIsLetGoBeforeItsWaiterGoesOn() async {
        let thread = DerivationThread(name: "test")
        defer { thread.stop() }
        let ended = Flag()
        // The work alone holds it: it ends when the thread lets go of the work.
        let value = await thread.run(grace: .seconds(10)) { [held = Held(ended)] in withExtendedLifetime(held) { 7 } }
        #expect(value == 7)
        #expect(ended.isSet)
    }
}
