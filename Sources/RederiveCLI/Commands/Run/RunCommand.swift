import ArgumentParser
import Foundation
import Rederive
import RederiveCodec
import RederiveSQLite

/// `rederive run`: derive every stale record.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Derive every stale record.",
        discussion: """
            Records whose last attempt failed are retried only with --retry-failed, or once their payload or \
            the processor's version changed. Exit status: 0 when no record failed, 3 when the run finished \
            but some records failed (see `rederive failures`), 130 when interrupted (run again to resume), \
            5 when ended by rederive cancel, 75 when another process holds the database past --wait or \
            --no-wait, 1 for a fatal error. rederive pause holds the run (it waits, \
            keeping its lease, until rederive resume; Ctrl-C ends it as interrupted meanwhile).
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(parsing: .unconditional, help: "Workers that inflate, decode and derive at once, up to 8 per core.")
    var parallel: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var batches: BatchSizeOptions

    @Option(help: ArgumentHelp("Bring only this processor up to date (repeatable).", valueName: "name"))
    var processor: [String] = []

    @Option(parsing: .unconditional, help: "Derive at most this many records.")
    var limit: Int?

    @Flag(help: ArgumentHelp(
        "Create the database when no file is at --db, or prepare one that has neither rederive's tables nor the pipeline's.",
        discussion: "Without it, a missing file is an error, and so is an existing database that is not rederive's (another program's, given by mistake): it is left as it was."
    ))
    var create = false

    @Flag(help: "Also retry records whose last attempt at this version and payload failed.")
    var retryFailed = false

    @Option(help: ArgumentHelp(
        "Progress display: a bar on a terminal and plain lines otherwise (auto), or as named.",
        discussion: "json writes one object per event on standard output; on PostgreSQL also, once per heartbeat, a `shared` event with what status shows of the whole run: done of total, the rate lately, the time left, each worker's share and last heartbeat."
    ))
    var progress: ProgressStyle = .auto

    @Option(parsing: .unconditional, help: ArgumentHelp("Derive at most this many records per second.", valueName: "records"))
    var maxRate: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Fail payloads that inflate to more than this many MiB.", valueName: "MiB"))
    var maxPayloadSize: Int = PayloadCodec.defaultMaximumSize >> 20

    @Flag(help: "Derive in worker processes: a processor that crashes fails only the record it was deriving.")
    var isolate = false

    @Flag(help: ArgumentHelp(
        "Derive every record from its payload, never from its stored projection.",
        discussion: "Projections read are written again from the payloads. With --isolate, records are always derived from their payloads."
    ))
    var noProjection = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Flag records that take longer than this to derive.",
        discussion: "With --isolate the worker process is stopped and the record fails with kind `timeout`; without it, progress and the summary name the records, since a thread cannot be stopped.",
        valueName: "seconds"
    ))
    var timeout: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "How long this worker's lease lasts without a heartbeat.",
        discussion: "On PostgreSQL, the records of a worker that is killed or cut off are taken over by the others this long after its last heartbeat.",
        valueName: "seconds"
    ))
    var leaseDuration: Double = 15

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Wait out a database out of reach this long, then end with status 69.",
        discussion: "Claims, commits and the lease's heartbeat are retried with a capped, jittered backoff meanwhile; what was committed stays, and the next run resumes.",
        valueName: "seconds"
    ))
    var outageLimit: Double = Runner.Configuration.defaultOutageLimit.secondsValue

    @Flag(help: ArgumentHelp(
        "Join the workers deriving a PostgreSQL database now; start nothing when none are.",
        discussion: "Every `rederive run` on a PostgreSQL database already shares the work with the others; with this flag a process started late (by a script adding machines) ends at once instead of starting a run of its own when the others are done."
    ))
    var workersOnly = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Wait at most this long for another process that holds a SQLite database's lease, then exit with status 75.",
        discussion: "Without it, a run waits as long as the holder runs (a watcher holds the lease while it runs). Whatever the wait, a run ends at once, with status 0, when no record is stale.",
        valueName: "seconds"
    ))
    var wait: Double?

    @Flag(help: "Exit at once, with status 75, when another process holds a SQLite database's lease and records are stale.")
    var noWait = false

    @OptionGroup(title: "Throttles") var throttles: ThrottleOptions

    @OptionGroup var safety: RunSafetyOptions

    @OptionGroup var report: DryRunReportOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try ValueBounds.workers.check(parallel, "--parallel")
        try ValueBounds.records.check(limit, "--limit")
        try ValueBounds.recordsPerSecond.check(maxRate, "--max-rate")
        try ValueBounds.payloadMiB.check(maxPayloadSize, "--max-payload-size")
        try ValueBounds.recordTimeout.check(timeout, "--timeout")
        try ValueBounds.leaseDuration.check(leaseDuration, "--lease-duration")
        try ValueBounds.outageLimit.check(outageLimit, "--outage-limit")
        try ValueBounds.leaseWait.check(wait, "--wait")
        if noWait, wait != nil { throw ValidationError("--no-wait ends at once; it takes no --wait") }
        try report.validate(dryRun: safety.dryRun)
        if workersOnly, safety.dryRun { throw ValidationError("--dry-run derives alone; it takes no --workers-only") }
        if create, safety.dryRun { throw ValidationError("--dry-run writes nothing; it takes no --create") }
    }

    func run() async throws {
        // Loggers write on the terminal itself; everything else through what --quiet lets pass.
        let terminal = database.environment.console
        let quiet = logging.verbosity.quiet
        let console = logging.verbosity.console(terminal, keepingOutput: progress == .json)
        if safety.backup {
            try database.requireSQLite(for: "run --backup", alternative: "back up PostgreSQL with pg_dump")
        }
        try await safety.backUpIfAsked(database, console: console)
        var configuration = Runner.Configuration(
            parallelism: parallel,
            processors: processor.isEmpty ? nil : Set(processor),
            retryFailed: retryFailed,
            limit: limit,
            maximumPayloadSize: maxPayloadSize << 20,
            maximumRate: maxRate
        )
        configuration.recordTimeout = timeout.map { .milliseconds(Int64($0 * 1000)) }
        configuration.leaseDuration = .milliseconds(Int64(leaseDuration * 1000))
        configuration.outageLimit = .milliseconds(Int64(outageLimit * 1000))
        batches.apply(to: &configuration)
        configuration.readsProjections = !noProjection
        if safety.dryRun {
            // A preview writes nothing and has no signal handling of its own: a signal ends it at once.
            ProcessSignals.stopDeferring()
            return try await safety.preview(
                database, configuration: configuration, report: report, console: console, verbose: logging.verbosity.verbose
            )
        }
        if workersOnly {
            try database.requireSharedRuns(for: "run --workers-only")
        }
        if !create, let file = database.sqliteFile, !FileManager.default.fileExists(atPath: file) {
            throw RederiveError(
                .file,
                "no database at \(file) (create one with rederive import or rederive generate, or run with --create)"
            )
        }
        let store = try await database.openPreparing(
            creating: create, serverLogger: logging.serverLogger(label: "rederive.postgres", console: terminal)
        )
        if workersOnly, try await store.liveWorkers().isEmpty {
            console.line("no workers are deriving \(database.databaseName): nothing to join")
            return
        }
        let isolated = isolate
            ? IsolatedDeriver(
                parallelism: parallel, executable: IsolatedDeriver.currentExecutable(),
                commandPath: database.environment.commandPath, timeout: configuration.recordTimeout
            )
            : nil
        configuration.deriver = isolated
        configuration.throttles = try await throttles.throttles(on: store, database: database)
        defer { isolated?.shutdown() }
        // JSON progress on a store many workers share also carries the whole run's figures, once per heartbeat.
        let events = (quiet && progress != .json ? ProgressStyle.none : progress).reporter(console: console)
        let shared = progress == .json
            ? store.sharedRuns.map { SharedRunProgressLines(events: events, store: $0, console: console) }
            : nil
        let pipelines = try database.pipelines()
        let plans = try Runner(store: store, pipelines: pipelines, configuration: configuration).makePlans()
        let leaseWait = LeaseWait(
            shared ?? events, limit: noWait ? .zero : wait.map { .milliseconds(Int64($0 * 1000)) },
            nothingStale: {
                for plan in plans where (try? await store.staleCount(plan)) != 0 { return false }
                return true
            }
        )
        let runner = Runner(
            store: store,
            pipelines: pipelines,
            configuration: configuration,
            progress: leaseWait,
            logger: logging.logger(label: "rederive.run", console: terminal)
        )
        let heartbeat = configuration.leaseDuration / 3
        let following = shared.map { shared in Task { await shared.follow(every: heartbeat) } }
        defer { following?.cancel() }
        let task = Task { try await runner.run() }
        leaseWait.attach { task.cancel() }
        let signals = SignalCancellation(cancelling: task, console: console)
        defer { signals.stop() }
        let summary: RunSummary
        do {
            // The invocation's own task cancelled (an app that mounted the command, a test past its time
            // limit) stops the run as a signal does, rather than leaving it to run on.
            summary = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch {
            if let outcome = leaseWait.outcome { return try endWithoutRun(outcome, console: console) }
            guard signals.hasStopped else { throw error }
            if !leaseWait.hasStarted {
                // Ctrl-C while waiting for another process's lease, or before the run began: nothing was derived.
                console.errorLine(
                    "rederive: interrupted \(leaseWait.hasWaited ? "while waiting for another process's lease" : "before the run started"); nothing was derived"
                )
            } else if !(error is CancellationError) {
                // Stopped by the signal before the run could end cleanly (the database out of reach, say):
                // what was committed stays, and the next run resumes. The signal's status, and why in one line.
                console.errorLine("rederive: \(error)")
            }
            throw ExitCode(signals.exitStatus)
        }

        if progress != .json {
            console.line(Self.describe(summary, processors: plans.reduce(0) { $0 + $1.selection.count }, pipelines: plans.count))
            if let projections = Self.describe(summary.projections) {
                console.line(projections)
            }
        }
        if !summary.overdue.isEmpty {
            console.errorLine("still deriving when the run ended, past the \(Format.setting(timeout ?? 0)) timeout: \(Format.overdue(summary.overdue))")
        }
        if summary.counts.failed > 0, progress != .json {
            let command = [database.environment.invocation, "failures", "--run", String(summary.runID)]
                + (database.path.map { _ in ["--db", Invocation.quoted(database.databaseArgument)] } ?? [])
            console.line("\(Format.count(summary.counts.failed, "record")) failed; list \(summary.counts.failed == 1 ? "it" : "them") with `\(command.joined(separator: " "))`.")
        }
        if summary.status == .interrupted {
            throw ExitCode(signals.exitStatus)
        }
        if summary.status == .cancelled {
            throw ExitCode(ExitStatus.cancelled)
        }
        if summary.counts.failed > 0 {
            throw ExitCode(ExitStatus.someFailed)
        }
    }

    /// Ends a run that another process's lease kept from starting: at once and successfully when
    /// nothing is stale, else with ``ExitStatus/busy`` once the wait was given up.
    private func endWithoutRun(_ outcome: LeaseWait.Outcome, console: Console) throws {
        switch outcome {
        case .nothingStale(let holder):
            console.line("nothing is stale in \(database.databaseName): \(Self.describe(holder)) holds its lease and keeps its records current")
        case .gaveUp(let holder):
            console.errorLine(
                "rederive: \(Self.describe(holder)) holds the lease of \(database.databaseName) and records are stale; nothing was derived"
                    + (noWait ? " (--no-wait)" : " after waiting \(Format.setting(wait ?? 0))") + "; run again once it ends"
            )
            throw ExitCode(ExitStatus.busy)
        }
    }

    /// `rederive watch --db rooms.sqlite (pid 4711 on build-3)`, or the process alone when its command is unknown.
    static func describe(_ holder: LeaseHolder) -> String {
        holder.command.map { "`\(Format.tableCell(String($0.prefix(120))))` (\(holder.worker))" } ?? holder.worker
    }

    /// How the run used stored projections, as `projections: 3,510 used, 2 fell back (2 payload changed)`;
    /// nil when it neither used one nor fell back from one.
    static func describe(_ projections: ProjectionCounts) -> String? {
        guard projections.used > 0 || projections.fallbackTotal > 0 else { return nil }
        var text = "projections: \(Format.count(projections.used)) used, \(Format.count(projections.fallbackTotal)) derived from the payload instead"
        let reasons = ProjectionFallback.allCases.compactMap { reason in
            projections.fallbacks[reason].map { "\(Format.count($0)) \(reason.rawValue.replacingOccurrences(of: "_", with: " "))" }
        }
        if !reasons.isEmpty { text += " (" + reasons.joined(separator: ", ") + ")" }
        return text
    }

    /// The summary line, counting records: a record counts once, however many of the run's
    /// `processors` (over `pipelines`) derived it; `derived` when a value of one changed, `failed` when
    /// one failed. `rederive failures` lists one entry per record and processor.
    static func describe(_ summary: RunSummary, processors: Int, pipelines: Int) -> String {
        let counts = summary.counts
        let scope = processors > 1
            ? ", each counted once across \(Format.count(processors, "processor"))" + (pipelines > 1 ? " of \(pipelines) pipelines" : "")
            : ""
        var parts = [
            "\(Format.count(counts.changed)) derived",
            "\(Format.count(counts.unchanged)) unchanged",
            "\(Format.count(counts.failed)) failed",
        ]
        if counts.skipped > 0 {
            parts.append("\(Format.count(counts.skipped)) skipped (not committed: the payload changed, or the lease was lost, during the run)")
        }
        var text = "run \(summary.runID) \(summary.status.rawValue): \(Format.count(counts.total, "record"))\(scope): " + parts.joined(separator: ", ")
            + " in \(Format.seconds(summary.elapsed.secondsValue)) (\(Format.rate(summary.rate)) records/s)"
        if summary.transientRetries > 0 {
            text += "; \(Format.count(summary.transientRetries, "claim or commit", plural: "claims or commits")) tried again after a transient database error"
        }
        return text
    }
}
