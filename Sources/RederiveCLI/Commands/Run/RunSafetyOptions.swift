import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `run`'s options for looking before leaping: a backup first.
struct RunSafetyOptions: ParsableArguments {
    @Flag(help: "Take a verified backup into <db>.backups/ before running.")
    var backup = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --backup, how many backups to keep.", valueName: "K"))
    var keepBackups: Int = 3

    @Flag(help: "Derive stale records and show what would change, writing nothing.")
    var dryRun = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --dry-run, derive only the first N stale records.", valueName: "N"))
    var sample: Int?

    func validate() throws {
        try ValueBounds.records.check(sample, "--sample")
        if sample != nil, !dryRun { throw ValidationError("--sample needs --dry-run") }
        if dryRun, backup { throw ValidationError("--dry-run writes nothing; it takes no --backup") }
        try ValueBounds.backups.check(keepBackups, "--keep-backups")
    }

    /// Takes the backup `--backup` asks for, before the database is opened for writing, and says that
    /// it did; a database where nothing is stale is not backed up, and that is said instead.
    func backUpIfAsked(_ database: DatabaseOptions, console: Console) async throws {
        guard backup, let path = database.sqliteFile, FileManager.default.fileExists(atPath: path) else { return }
        if try await !hasWork(database) {
            console.errorLine("no backup taken: every record of \(database.databaseName) is up to date, so the run has nothing to write")
            return
        }
        let signals = SignalCleanup(console: console, announcement: "interrupted while backing up; no backup was written, and nothing was derived")
        defer { signals.stop() }
        let report: DatabaseBackup.Report
        do {
            report = try await BackupRotation(database: path, keep: keepBackups).backUp()
        } catch {
            try await signals.rethrow(error)
        }
        console.errorLine("backed up to \(report.path)")
    }

    /// Whether a run could write: some record of a pipeline is not up to date for some processor.
    /// Read without changing anything; a database not prepared yet, or prepared by an older rederive,
    /// has work. `run --backup` is SQLite's alone.
    private func hasWork(_ database: DatabaseOptions) async throws -> Bool {
        let store: any CommandStore
        do {
            store = try await database.open(.reading(allowingUnprepared: true), pipelines: [])
        } catch let error as RederiveError where error.code == .schemaMismatch {
            return true
        }
        for pipeline in try database.pipelines() {
            guard try await !store.needsPreparation(pipeline) else { return true }
            if try await store.status(of: pipeline).contains(where: { $0.upToDate < $0.records }) { return true }
        }
        return false
    }

    /// Previews the run instead of running it: the store is opened read-only. `verbose` lists every
    /// failure a run would record, not only counts and a few examples.
    func preview(
        _ database: DatabaseOptions, configuration: Runner.Configuration, report file: DryRunReportOptions, console: Console, verbose: Bool
    ) async throws {
        let store = try await database.openForReading()
        let dryRun = DryRun(store: store, pipelines: try database.pipelines(), configuration: configuration, sample: sample)
        let report = try await file.run(dryRun, history: store, database: database.databaseName, console: console)
        console.line(DryRunText.render(report, verbose: verbose))
    }
}
