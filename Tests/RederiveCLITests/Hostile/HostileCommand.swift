import Testing

/// One command line of the hostile-database matrix, with realistic arguments. In `arguments`, `OUT/`
/// stands for the case's output directory and `IN/` for its inputs (a backup, a directory of exports);
/// `--db` and `--busy-timeout` are added by the harness.
struct HostileCommand: Sendable, CustomTestStringConvertible {
    /// What the command may do to the database.
    enum Access: Sendable {
        /// Opens it read-only and changes nothing, not even its journal mode.
        case reads
        /// Changes a database rederive has prepared.
        case writes
        /// May prepare a database that has none of the pipeline's tables (`import`, `generate`).
        case prepares
    }

    let name: String
    let arguments: [String]
    let access: Access
    /// The exit statuses of the command doing its job (the README's table).
    let successes: Set<Int32>
    /// What the command may create under the case's directory when it succeeds (a prefix, for a directory).
    var outputs: [String] = []
    /// Whether it runs until stopped (`watch`): the harness sends SIGTERM after a short while.
    var runsUntilStopped = false

    var testDescription: String { name }

    var isRestore: Bool { name == "restore" }

    static let all: [HostileCommand] = [
        HostileCommand(name: "status", arguments: ["status"], access: .reads, successes: [0]),
        HostileCommand(name: "status-json", arguments: ["status", "--format", "json"], access: .reads, successes: [0]),
        HostileCommand(name: "run", arguments: ["run", "--progress", "none", "--parallel", "2"], access: .writes, successes: [0, 3]),
        HostileCommand(name: "run-dry-run", arguments: ["run", "--dry-run"], access: .reads, successes: [0, 3]),
        HostileCommand(name: "verify-all", arguments: ["verify", "--all", "--parallel", "2"], access: .reads, successes: [0, 4]),
        HostileCommand(name: "failures", arguments: ["failures"], access: .reads, successes: [0]),
        HostileCommand(name: "report", arguments: ["report", "OUT/report.html"], access: .reads, successes: [0], outputs: ["out/report.html"]),
        HostileCommand(name: "history", arguments: ["history"], access: .reads, successes: [0]),
        HostileCommand(name: "export", arguments: ["export", "OUT/export"], access: .reads, successes: [0, 3], outputs: ["out/export"]),
        HostileCommand(name: "projections", arguments: ["projections"], access: .reads, successes: [0]),
        HostileCommand(name: "migrate-list", arguments: ["migrate", "--list"], access: .reads, successes: [0]),
        HostileCommand(
            name: "backup", arguments: ["backup", "--to", "OUT/backup.sqlite"], access: .reads, successes: [0], outputs: ["out/backup.sqlite"]
        ),
        HostileCommand(name: "rollback", arguments: ["rollback", "1"], access: .writes, successes: [0]),
        HostileCommand(name: "invalidate", arguments: ["invalidate", "--processor", "room_type"], access: .writes, successes: [0]),
        HostileCommand(name: "pause", arguments: ["pause", "--pipeline", "roomscan"], access: .writes, successes: [0]),
        HostileCommand(name: "resume", arguments: ["resume", "--pipeline", "roomscan"], access: .writes, successes: [0]),
        // With no run in progress, cancel says there is nothing to cancel and exits 1.
        HostileCommand(name: "cancel", arguments: ["cancel", "--pipeline", "roomscan"], access: .writes, successes: [0, 1]),
        HostileCommand(name: "reset", arguments: ["reset", "--yes"], access: .writes, successes: [0]),
        HostileCommand(name: "migrate", arguments: ["migrate"], access: .writes, successes: [0]),
        HostileCommand(name: "restore", arguments: ["restore", "IN/backup.sqlite"], access: .writes, successes: [0]),
        HostileCommand(name: "import", arguments: ["import", "--parallel", "2", "IN/exports"], access: .prepares, successes: [0, 3]),
        HostileCommand(name: "generate", arguments: ["generate", "--count", "3", "--seed", "4"], access: .prepares, successes: [0]),
        HostileCommand(
            name: "watch", arguments: ["watch", "--parallel", "2", "--poll-interval", "0.2"], access: .writes, successes: [0], runsUntilStopped: true
        ),
    ]
}
