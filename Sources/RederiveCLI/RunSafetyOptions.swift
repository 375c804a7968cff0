import ArgumentParser
import Foundation
import RederiveSQLite

/// `run`'s options for looking before leaping: a backup first.
struct RunSafetyOptions: ParsableArguments {
    @Flag(help: "Take a verified backup into <db>.backups/ before running.")
    var backup = false

    @Option(help: ArgumentHelp("With --backup, how many backups to keep.", valueName: "K"))
    var keepBackups: Int = 3

    func validate() throws {
        if keepBackups < 1 { throw ValidationError("--keep-backups must be at least 1") }
    }

    /// Takes the backup `--backup` asks for, before the database is opened for writing.
    func backUpIfAsked(_ database: String, console: Console) async throws {
        guard backup, FileManager.default.fileExists(atPath: database) else { return }
        let report = try await BackupRotation(database: database, keep: keepBackups).backUp()
        console.errorLine("backed up to \(report.path)")
    }
}
