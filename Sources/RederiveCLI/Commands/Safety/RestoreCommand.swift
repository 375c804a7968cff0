import ArgumentParser
import RederiveSQLite

/// `rederive restore PATH`: replace the database with a verified backup.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the database with a backup, after verifying the backup.",
        discussion: """
            Refuses while another connection has the database open, and when the backup fails its integrity \
            check; the database is then left as it was. The replacement is atomic.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Argument(help: ArgumentHelp("The backup file.", valueName: "path"))
    var backup: String

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        // The store is not opened: its connections would make the restore refuse.
        let file = try database.requireSQLite(for: "restore", alternative: "restore PostgreSQL with pg_restore or psql from a pg_dump")
        let signals = SignalCleanup(console: console, announcement: "restore interrupted; its temporary copy was removed")
        defer { signals.stop() }
        let tables: [String: Int]
        do {
            tables = try await DatabaseRestore.restore(backup, over: file)
        } catch {
            try await signals.rethrow(error)
        }
        console.line("restored \(file) from \(backup) (\(BackupCommand.describe(tables)))")
    }
}
