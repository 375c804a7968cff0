/// What a command must do to a database of a shape in a state, as rules rather than a list: the exit
/// statuses the README's table allows and whether the file must stay byte for byte what it was.
/// The invariants every case shares (no signal, one clean line on a failure, no file left behind) are
/// checked by ``HostileRunner`` whatever the rule says.
struct HostileExpectation: Sendable {
    /// The exit statuses allowed.
    var statuses: Set<Int32>
    /// Whether the database's bytes and journal mode must be unchanged whatever the status.
    var changesNothing: Bool
    /// Text the one line of a refusal (status 1) must hold, any of them; empty: any clean line.
    var refusalMentions: [String] = []
    /// The rule that gave this expectation, quoted in failure messages.
    var rule: String

    static let refusal: Int32 = 1

    static func of(_ command: HostileCommand, on shape: HostileDatabaseShape, in state: HostileDatabaseState) -> HostileExpectation {
        let reads = command.access == .reads
        if command.name.hasPrefix("migrate") {
            // The rederive executable registers no schema migration: migrate says so, whatever the file.
            return HostileExpectation(statuses: [0], changesNothing: true, rule: "with no migration registered, migrate says so and touches nothing")
        }
        switch state {
        case .normal:
            break
        case .locked:
            // In WAL mode a reader reads past another program's write lock; a writer waits
            // --busy-timeout and then says the database is locked; watch waits for the lock.
            if reads { return HostileExpectation(statuses: command.successes, changesNothing: true, rule: "a reader reads past another program's lock") }
            if command.runsUntilStopped {
                return HostileExpectation(statuses: [0], changesNothing: true, rule: "watch waits for another program's lock until stopped")
            }
            return HostileExpectation(
                statuses: [refusal], changesNothing: true, refusalMentions: ["lock", "in use"],
                rule: "a writer behind another program's lock says so and changes nothing"
            )
        case .readOnly:
            if reads { return HostileExpectation(statuses: command.successes, changesNothing: true, rule: "a reader works on a file it may not write") }
            return HostileExpectation(
                statuses: [refusal], changesNothing: true, refusalMentions: ["read-only", "cannot write", "permission"],
                rule: "a writer on a file it may not write says so and changes nothing"
            )
        case .fullDisk:
            return HostileExpectation(
                statuses: command.successes.union([refusal]), changesNothing: reads,
                rule: "on a full disk a command does its job or says in one line it cannot, changing nothing"
            )
        case .leased:
            if command.isRestore {
                return HostileExpectation(
                    statuses: [refusal], changesNothing: false, rule: "restore refuses while another process has the database open"
                )
            }
            if ["rollback", "reset"].contains(command.name) {
                return HostileExpectation(
                    statuses: command.successes.union([refusal]), changesNothing: false,
                    rule: "rollback and reset beside a watcher either work or refuse while a run is in progress"
                )
            }
            return HostileExpectation(
                statuses: command.successes, changesNothing: false,
                rule: "beside a watcher that keeps the records current, every command does its job and run ends at once"
            )
        }

        switch shape {
        case .prepared:
            return HostileExpectation(statuses: command.successes, changesNothing: reads, rule: "a prepared database: every command does its job")
        case _ where shape.isUsersTable:
            return HostileExpectation(
                statuses: command.successes.union([refusal]), changesNothing: reads,
                refusalMentions: ["room_scans", "not a rederive database"],
                rule: "a table SQLite allows: served, or refused in one line naming the table and its column"
            )
        case .foreign, .emptyFile:
            if command.access == .prepares {
                return HostileExpectation(statuses: command.successes, changesNothing: false, rule: "import and generate prepare a database with none of the pipeline's tables")
            }
            if command.isRestore && shape == .emptyFile {
                return HostileExpectation(statuses: [0, refusal], changesNothing: false, rule: "restore may replace an empty file")
            }
            if command.name == "backup" {
                return HostileExpectation(statuses: [0, refusal], changesNothing: true, rule: "a backup of any SQLite database is harmless")
            }
            return HostileExpectation(
                statuses: [refusal], changesNothing: true, refusalMentions: ["not a rederive database"],
                rule: "a database rederive has not prepared: reading commands say so, writing commands refuse it unchanged"
            )
        case .notSQLite:
            return HostileExpectation(statuses: [refusal], changesNothing: true, rule: "a file that is not a database: every command refuses it unchanged")
        default:
            // Corrupt pages, truncation.
            if command.isRestore {
                return HostileExpectation(statuses: [0], changesNothing: false, rule: "restore replaces a damaged database with a sound backup")
            }
            return HostileExpectation(
                statuses: command.successes.union([refusal]), changesNothing: reads,
                rule: "a damaged database: a command does what it can or says in one line what is damaged"
            )
        }
    }
}
