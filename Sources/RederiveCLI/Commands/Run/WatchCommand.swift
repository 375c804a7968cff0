import ArgumentParser
import Foundation
import Logging
import Rederive
import RederiveWatch
import ServiceLifecycle
import UnixSignals
#if MetricsEndpoint
import RederiveMetricsEndpoint
#endif

/// `rederive watch`: derive records as they become stale, until stopped.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Derive records as they become stale, until stopped.",
        discussion: """
            Derives new records, payloads another program replaced, and records made stale by a new \
            version of a processor or by `rederive invalidate`, as they appear. On SQLite it notices other \
            connections' commits within milliseconds; on PostgreSQL it is notified. It also looks every \
            --poll-interval regardless. SIGTERM or SIGINT stop it: claims stop, the records in flight are \
            committed (within --drain-timeout), the lease is released, and it exits with status 0. While the \
            database cannot be reached it keeps running and tries again. rederive pause and the throttles \
            hold its claims as they hold a run's; rederive cancel ends its run, and it watches on. `rederive history` shows its work \
            as runs: one from the moment it finds records stale until it has found none for 10 s, at most 15 \
            minutes each.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(parsing: .unconditional, help: "Workers that inflate, decode and derive at once, up to 8 per core.")
    var parallel: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var batches: BatchSizeOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Look for stale records at least this often, whatever the signals say.",
        discussion: "A change signal that is lost (a dropped connection) delays records this long at most.",
        valueName: "seconds"
    ))
    var pollInterval: Double = 5

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "On SIGTERM or SIGINT, wait this long for the records in flight to be committed.",
        discussion: "Records still in flight then stay stale; the next watcher or run derives them.",
        valueName: "seconds"
    ))
    var drainTimeout: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "How long this watcher's lease lasts without a heartbeat.",
        discussion: "The records of a watcher that is killed or cut off are taken over this long after its last heartbeat.",
        valueName: "seconds"
    ))
    var leaseDuration: Double = 15

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "End with status 69 once the database has been out of reach this long.",
        discussion: "Without it a watcher waits out any outage, reporting itself not ready and logging a reminder every 30 s.",
        valueName: "seconds"
    ))
    var outageLimit: Double?

    @Option(help: ArgumentHelp(
        "Serve /metrics, /healthz and /readyz over HTTP on this address.",
        discussion: "HOST:PORT, such as 127.0.0.1:9464; port 0 lets the system choose, and the address is logged. Needs a rederive built with --traits MetricsEndpoint.",
        valueName: "host:port"
    ))
    var metricsAddress: String?

    @OptionGroup(title: "Throttles") var throttles: ThrottleOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try ValueBounds.workers.check(parallel, "--parallel")
        try ValueBounds.pollInterval.check(pollInterval, "--poll-interval")
        try ValueBounds.drainTimeout.check(drainTimeout, "--drain-timeout")
        try ValueBounds.leaseDuration.check(leaseDuration, "--lease-duration")
        try ValueBounds.outageLimit.check(outageLimit, "--outage-limit")
        if let metricsAddress {
            #if MetricsEndpoint
            do {
                _ = try EndpointAddress(parsing: metricsAddress)
            } catch {
                throw ValidationError("--metrics-address: \(error.message)")
            }
            #else
            throw ValidationError(
                "--metrics-address \(metricsAddress) needs a rederive built with the metrics endpoint: swift build --traits MetricsEndpoint"
            )
            #endif
        }
    }

    func run() async throws {
        // SIGTERM and SIGINT stop the watcher through its service group, or its wait for the database.
        ProcessSignals.leaveToCommand()
        let console = database.environment.console
        if let file = database.sqliteFile, !FileManager.default.fileExists(atPath: file) {
            throw RederiveError(.file, "no database at \(file) (create one with rederive import or rederive generate)")
        }
        // A watcher is a service: it logs its runs and outages at info unless asked otherwise.
        let logger = logging.serverLogger(label: "rederive.watch", console: console)
        let database = self.database
        let serverLogger = logging.serverLogger(label: "rederive.postgres", console: console)
        guard let store = try await Self.openWaiting(logger: logger, {
            try await database.openPreparing(creating: false, serverLogger: serverLogger)
        }) else { return }
        guard store.changeSignaling != nil else {
            throw RederiveError(.invalidArgument, "\(database.databaseName) cannot be watched: its store does not signal changes")
        }
        var runner = Runner.Configuration(parallelism: parallel)
        batches.apply(to: &runner)
        runner.leaseDuration = Self.duration(leaseDuration)
        runner.throttles = try await throttles.throttles(on: store, database: database)
        var configuration = Watcher.Configuration(runner: runner)
        configuration.pollInterval = Self.duration(pollInterval)
        configuration.drainTimeout = Self.duration(drainTimeout)
        configuration.outageLimit = outageLimit.map(Self.duration)
        // What a metrics endpoint reads: the watcher keeps `health` current and reports to `metrics`.
        // The endpoint bootstraps the metrics system, so it is made before `metrics` takes its factory.
        let health = WatchHealth()
        let endpoint = try makeEndpoint(health: health, logger: logger)
        let metrics = WatchMetrics()
        metrics.buildInfo(version: RederiveVersion.current)
        let watcher = Watcher(
            store: store, pipelines: try database.pipelines(), configuration: configuration, health: health,
            metrics: metrics, logger: logger
        )
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: watcher)]
        if let endpoint { services.append(.init(service: endpoint)) }
        var group = ServiceGroupConfiguration(services: services, logger: Self.quiet)
        group.gracefulShutdownSignals = [.sigterm, .sigint]
        // The drain, then ending the run and releasing the lease.
        group.maximumGracefulShutdownDuration = configuration.drainTimeout + .seconds(5)
        try await ServiceGroup(configuration: group).run()
    }

    /// Opens the database with `open`, waiting while another program holds its lock (a transient
    /// error), as the watcher waits out an outage once it runs: the wait doubles up to 30 s, and is
    /// logged once when it starts and once when it ends. SIGTERM or SIGINT while waiting end the
    /// command with status 0, as they end a watcher; nil then.
    private static func openWaiting(
        logger: Logger, _ open: @escaping @Sendable () async throws -> any CommandStore
    ) async throws -> (any CommandStore)? {
        do {
            return try await open()
        } catch let error as RederiveError where error.isTransient {
            logger.warning("waiting for the database: \(error)")
        }
        let since = ContinuousClock.now
        return try await withThrowingTaskGroup(of: (any CommandStore)?.self) { group in
            group.addTask {
                var delay = 1.0
                while true {
                    try await Task.sleep(for: .milliseconds(Int64(delay * 1000 * Double.random(in: 0.8...1.2))))
                    do {
                        let store = try await open()
                        let seconds = since.duration(to: .now).secondsValue
                        logger.info("the database is free again; watching", metadata: ["waitedSeconds": "\((seconds * 10).rounded() / 10)"])
                        return store
                    } catch let error as RederiveError where error.isTransient {
                        delay = min(delay * 2, 30)
                    }
                }
            }
            group.addTask {
                // The signals the watcher stops on, trapped the way its service group traps them.
                for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
                    logger.info("stopped while waiting for the database; nothing was derived")
                    return nil
                }
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The HTTP endpoint of `--metrics-address`, serving `health` and the process's metrics; it logs
    /// the address it listens on (with port 0, the port the system chose) at info.
    private func makeEndpoint(health: WatchHealth, logger: Logger) throws -> (any Service)? {
        guard let metricsAddress else { return nil }
        #if MetricsEndpoint
        return try MetricsEndpoint(address: metricsAddress, health: health, logger: logger)
        #else
        throw RederiveError(.invalidArgument, "--metrics-address needs a rederive built with the metrics endpoint: swift build --traits MetricsEndpoint")
        #endif
    }

    /// The service group's own messages (services starting and stopping) are not the user's business.
    private static let quiet = Logger(label: "rederive.services", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
