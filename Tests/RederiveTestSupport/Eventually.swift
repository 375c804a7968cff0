import Foundation

/// Polls `condition` every 10 ms until it holds; false after `seconds`. For a processor's hooks, which
/// run on threads of their own and wait for something another task does; the bound only keeps a broken
/// build from hanging the suite. Never call it on the cooperative pool: use the async one there.
package func eventually(within seconds: Double = 240, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

/// Polls `condition` every 10 ms until it holds; false after `seconds`.
package func eventually(within seconds: Double = 240, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
