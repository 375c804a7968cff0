/// A fatal problem: the run or command cannot go on.
///
/// Problems with one record are never thrown: they become failures of that record (see ``RecordFailure``).
public struct RederiveError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem this is, for callers that react to some of them.
    public enum Code: String, Sendable, Hashable {
        /// Two pipelines or processors share a name, or two processors claim one column.
        case invalidRegistration
        /// A pipeline or processor name given by the caller is not registered.
        case unknownName
        /// The database's tables do not match what a pipeline declares.
        case schemaMismatch
        /// The database could not be opened, read or written.
        case database
        /// An argument is out of range.
        case invalidArgument
        /// A file could not be read or written.
        case file
        /// This process's lease on the store's work expired and another process may have taken it
        /// over: nothing more is committed.
        case leaseLost
        /// The database was out of reach for longer than the outage limit
        /// (``Runner/Configuration-swift.struct/outageLimit``): the worker gave up waiting for it.
        /// What it committed stays, and the next run resumes.
        case outage
        /// The database refuses the work, however long one waits: it does not exist (dropped or
        /// renamed), or it takes no writes (a read-only server or a standby). Never retried.
        case databaseRefused
    }

    /// What kind of problem this is.
    public let code: Code
    /// A one-line explanation written for a person, naming what is wrong and where.
    public let message: String
    /// The error that caused this one, if any.
    public let underlying: (any Error & Sendable)?
    /// Whether the database refused or lost the operation for a reason of the moment, not of the
    /// records: a lost connection, a serialization failure, a deadlock, a lock not granted in time.
    /// The runner tries such a claim or commit again, with a backoff, and never makes a record's
    /// failure of it (see ``Runner/Configuration-swift.struct/outageLimit``).
    public let isTransient: Bool
    /// Whether the database was out of reach: the connection was lost, refused or not answered before
    /// anything was committed. Transient too, and waited for longer than the others: until the
    /// database is back, within the run's outage bound (``TransientRetry``).
    package let isOutage: Bool

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of problem this is.
    ///   - message: One line for a person, naming what is wrong and where.
    ///   - underlying: The error that caused this one, if any.
    ///   - transient: Whether trying the operation again may succeed (see ``isTransient``).
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil, transient: Bool = false) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.isTransient = transient
        isOutage = false
    }

    /// `error` as the sign of an outage: transient, and waited for until the database is back.
    package init(outage error: RederiveError) {
        code = error.code
        message = error.message
        underlying = error.underlying
        isTransient = true
        isOutage = true
    }

    /// The message, followed by the underlying error's when there is one.
    public var description: String {
        guard let underlying else { return message }
        return "\(message): \(UnderlyingReason.text(underlying))"
    }
}
