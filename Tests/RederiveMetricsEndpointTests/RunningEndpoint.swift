#if MetricsEndpoint
import Logging
import RederiveMetricsEndpoint
import RederiveWatch
import ServiceLifecycle
import Testing

/// Runs an endpoint on a port the system chooses in a `ServiceGroup` for the length of `body`, then
/// shuts the group down gracefully and waits for it to end.
func withRunningEndpoint<T: Sendable>(
    health: WatchHealth, _ body: @Sendable (_ port: Int) async throws -> T
) async throws -> T {
    let logger = Logger(label: "rederive.test.metrics", factory: { _ in SwiftLogNoOpLogHandler() })
    let endpoint = try MetricsEndpoint(address: "127.0.0.1:0", health: health, logger: logger)
    let group = ServiceGroup(services: [endpoint], logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let port = try await endpoint.boundPort()
            #expect(port > 0)
            let result = try await body(port)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}
#endif
