import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `rederive backup --to PATH`: a verified online copy of the database.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database to a file, safely while the app writes, and verify the copy.",
        discussion: "The copy is checked with PRAGMA integrity_check and its row counts before it is put in place."
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: ArgumentHelp("The backup file to write.", valueName: "path"))
    var to: String

    @Flag(help: "Replace an existing file at the destination.")
    var force = false

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let file = try database.requireSQLite(for: "backup", alternative: "back up PostgreSQL with pg_dump")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory), isDirectory.boolValue {
            let inside = (to as NSString).appendingPathComponent((file as NSString).lastPathComponent)
            throw RederiveError(.file, "\(to) is a directory; --to names the backup file, such as \(inside)")
        }
        let signals = SignalCleanup(console: console, announcement: "backup interrupted; no backup was written")
        defer { signals.stop() }
        let report: DatabaseBackup.Report
        do {
            report = try await DatabaseBackup.create(of: file, to: to, replacing: force)
        } catch {
            try await signals.rethrow(error)
        }
        console.line("backed up \(file) to \(report.path) (verified: \(BackupCommand.describe(report.tables)))")
    }

    /// `3 tables, 1,204 rows`.
    static func describe(_ tables: [String: Int]) -> String {
        "\(Format.count(tables.count, "table")), \(Format.count(tables.values.reduce(0, +), "row"))"
    }
}
