import Logging
import RederiveSQLite
import RederiveWatch
import ServiceLifecycle
import UnixSignals

/// The in-app watcher of docs/watching.md, compiled and run by ``ReadmeWatchExampleTests``: the app's own
/// service and a watcher of its recipes in one service group, which the app then runs.
func appServiceGroup(databasePath: String, appServer: some Service, logger: Logger) throws -> ServiceGroup {
    // README watch example begin
    let watcher = Watcher(store: try SQLiteStore(path: databasePath), pipelines: [recipes], logger: logger)
    let group = ServiceGroup(
        services: [appServer, watcher],       // the app's own services beside it
        gracefulShutdownSignals: [.sigterm],  // SIGTERM drains the watcher, then the group ends
        logger: logger
    )
    // README watch example end
    return group
}
