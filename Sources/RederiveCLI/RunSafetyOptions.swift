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

    /// Takes the backup `--backup` asks for, before the database is opened for writing.
    func backUpIfAsked(_ database: String, console: Console) async throws {
        guard backup, FileManager.default.fileExists(atPath: database) else { return }
        let report = try await BackupRotation(database: database, keep: keepBackups).backUp()
        console.errorLine("backed up to \(report.path)")
    }

    /// Previews the run instead of running it: the store is opened read-only.
    func preview(_ database: DatabaseOptions, configuration: Runner.Configuration, report file: DryRunReportOptions, console: Console) async throws {
        let store = try await database.openForReading()
        let dryRun = DryRun(store: store, pipelines: try database.pipelines(), configuration: configuration, sample: sample)
        let report = try await file.run(dryRun, database: database.databaseName, console: console)
        console.line(DryRunText.render(report))
    }
}
