import Foundation
import Logging
import Rederive

/// What a command asks of a ``StoreOpener``: the database, how to open it, and the context it opens in.
public struct StoreRequest: Sendable {
    /// How a command opens a store. Every mode opens a database that exists unless it says otherwise,
    /// and reports a missing one, or one that is not a database of this kind, in one line.
    public enum Mode: Sendable, Hashable {
        /// For a command that only reads: nothing in the database changes, not its schema nor its
        /// settings, and no pipeline is prepared. A database rederive never prepared is refused unless
        /// `allowingUnprepared` (for listing an app's schema migrations, all pending then); one an older
        /// rederive prepared is refused with a line that says to upgrade it by writing.
        case reading(allowingUnprepared: Bool)
        /// For a preview that writes only inside transactions it rolls back (`migrate --dry-run`): the
        /// database as it is, with no pipeline prepared.
        case previewing
        /// For a command that changes what rederive keeps (stamps, failures, derived values): a
        /// database rederive never prepared is refused, one an older rederive prepared is upgraded, and
        /// ``StoreRequest/pipelines`` are prepared.
        case writing
        /// For a command that writes records or runs: rederive's bookkeeping and
        /// ``StoreRequest/pipelines`` are prepared, all at once where the store can, so that a
        /// preparation that fails leaves the database as it was. With `creating`, a missing database is
        /// created, and one with neither rederive's tables nor a pipeline's table is prepared (`import`,
        /// `generate`, `demo`, `run --create`); without it, such a database is refused, unchanged.
        case preparing(creating: Bool)
    }

    /// The database as the command was given it: a path or a URL, whose scheme chose the opener.
    public let location: String
    /// How to open it.
    public let mode: Mode
    /// The pipelines the command acts on: prepared in ``Mode/writing`` and ``Mode/preparing(creating:)``;
    /// in the other modes the command checks them itself, with `StoredValueReading/needsPreparation(_:)`.
    public let pipelines: [Pipeline]
    /// How long a statement waits for another connection's lock before failing (`--busy-timeout`), for
    /// stores that wait on locks.
    public let busyTimeout: TimeInterval
    /// The process's environment variables, such as `$PGPASSWORD`.
    public let variables: [String: String]
    /// Receives what a store on a server logs, such as the server going out of reach and coming back;
    /// nil for none.
    public let logger: Logger?
    /// Writes a warning (without the `rederive:` prefix) to standard error, once, such as a password
    /// file that others may read.
    public let warn: @Sendable (String) -> Void

    /// A request to open `location` in `mode`.
    public init(
        location: String, mode: Mode, pipelines: [Pipeline], busyTimeout: TimeInterval, variables: [String: String],
        logger: Logger? = nil, warn: @escaping @Sendable (String) -> Void
    ) {
        self.location = location
        self.mode = mode
        self.pipelines = pipelines
        self.busyTimeout = busyTimeout
        self.variables = variables
        self.logger = logger
        self.warn = warn
    }
}
