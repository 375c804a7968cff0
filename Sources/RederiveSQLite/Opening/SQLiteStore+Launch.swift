import Logging
import Rederive

/// What the launch-time call did.
public struct LaunchReport: Sendable {
    /// Schema migrations applied, in order.
    public let migrations: [String]
    /// The run that derived stale records; nil when nothing was pending.
    public let run: RunSummary?
}

extension SQLiteStore {
    /// The one call for an app's launch: applies pending schema migrations, then derives what is stale.
    ///
    /// Safe to call at every launch: with nothing to migrate or derive it costs a few index reads and
    /// writes nothing, not even a run record.
    ///
    /// ```swift
    /// let store = try SQLiteStore(path: databasePath)
    /// let report = try await store.bringUpToDate(
    ///     pipelines: [recipes],
    ///     migrator: try SchemaMigrator([.addColumn("add-rating", table: "recipes", column: .integer("rating", default: 0))]),
    ///     progress: launchScreenProgress
    /// )
    /// ```
    public func bringUpToDate(
        pipelines: [Pipeline],
        migrator: SchemaMigrator? = nil,
        configuration: Runner.Configuration = Runner.Configuration(),
        progress: any ProgressReporter = NoProgress(),
        logger: Logger = Logger(label: "rederive.launch", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> LaunchReport {
        var applied: [String] = []
        if let migrator {
            applied = try await migrate(migrator).applied
        }
        var pending = 0
        for pipeline in pipelines {
            try await prepare(pipeline)
            let statuses = try await status(of: pipeline)
                .filter { configuration.processors?.contains($0.name) ?? true }
            pending += statuses.map { configuration.retryFailed ? $0.stale + $0.failed : $0.stale }.max() ?? 0
        }
        guard pending > 0 else {
            return LaunchReport(migrations: applied, run: nil)
        }
        let runner = Runner(store: self, pipelines: pipelines, configuration: configuration, progress: progress, logger: logger)
        return LaunchReport(migrations: applied, run: try await runner.run())
    }
}
