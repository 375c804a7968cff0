import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `rederive migrate`: the app's schema migrations registered in code.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema migrations registered in code, in order, each in its own transaction.",
        discussion: """
            A migration that fails rolls back completely and stops the ones after it; the database stays as \
            the previous migration left it. --dry-run applies the pending migrations and rolls them back, so \
            what would fail fails, and nothing is written.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: ArgumentHelp("Apply migrations up to and including this one.", valueName: "id"))
    var to: String?

    @Flag(help: "Apply each pending migration and roll it back: report what would happen, write nothing.")
    var dryRun = false

    @Flag(help: "List applied and pending migrations, with times.")
    var list = false

    @Flag(help: "Take a verified backup into <db>.backups/ first.")
    var backup = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --backup, how many backups to keep.", valueName: "K"))
    var keepBackups: Int = 3

    func validate() throws {
        if list, dryRun || to != nil || backup { throw ValidationError("--list takes no other option") }
        if dryRun, backup { throw ValidationError("--dry-run writes nothing; it takes no --backup") }
        try ValueBounds.backups.check(keepBackups, "--keep-backups")
    }

    func run() async throws {
        let environment = database.environment
        let console = verbosity.console(environment.console)
        guard let migrator = environment.migrator else {
            if let to {
                throw RederiveError(.unknownName, "no schema migration \"\(to)\": none are registered")
            }
            console.line("no schema migrations are registered")
            return
        }
        // An unknown target is named before anything is backed up or opened.
        _ = try migrator.migrations(through: to)
        if backup {
            let file = try database.requireSQLite(for: "migrate --backup", alternative: "back up PostgreSQL with pg_dump")
            if FileManager.default.fileExists(atPath: file) {
                let report = try await BackupRotation(database: file, keep: keepBackups).backUp()
                console.errorLine("backed up to \(report.path)")
            }
        }
        // Migrations run before pipelines are prepared: they may create or rename what pipelines read.
        let target = try await MigrationTarget.open(database, reading: list, dryRun: dryRun)
        if list {
            let states = try await target.states(migrator)
            console.line(Format.table(
                ["migration", "status", "applied at", "took", "by rederive"],
                states.map { state in
                    [
                        state.id, state.isApplied ? "applied" : "pending",
                        state.appliedAt.map(isoTimestamp) ?? "",
                        state.duration.map { Format.seconds($0.secondsValue) } ?? "",
                        state.rederiveVersion ?? "",
                    ]
                }
            ))
            return
        }
        let outcome = try await target.migrate(migrator, to: to, dryRun: dryRun)
        if outcome.applied.isEmpty {
            console.line("the schema is up to date")
        } else if dryRun {
            console.line("dry run: \(Format.count(outcome.applied.count, "migration")) \(outcome.applied.count == 1 ? "applies" : "apply") cleanly (rolled back): \(outcome.applied.joined(separator: ", "))")
        } else {
            console.line("applied \(Format.count(outcome.applied.count, "migration")): \(outcome.applied.joined(separator: ", "))")
        }
    }
}
