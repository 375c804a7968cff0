/// A process's right to derive and commit a store's records, held while its run goes on.
///
/// A lease expires unless it is renewed: a process that is killed, or cut off from the database,
/// loses it after ``duration`` and others may take its work over. Every commit is fenced by the
/// lease's token, so a process that comes back after losing its lease commits nothing.
public struct WorkerLease: Sendable, Hashable {
    /// The process holding it.
    public let worker: WorkerIdentity
    /// Unique to this acquisition.
    public let token: String
    /// How long the lease lasts without renewal.
    public let duration: Duration

    /// A lease as a store hands it out from ``RecordStore/acquireLease(for:duration:)``.
    public init(worker: WorkerIdentity, token: String, duration: Duration) {
        self.worker = worker
        self.token = token
        self.duration = duration
    }
}

/// What waiting for another process's lease is reported as.
public struct LeaseHolder: Sendable, Hashable {
    /// The process that holds the lease, as it described itself.
    public let worker: String
    /// Seconds until the lease expires unless it is renewed.
    public let expiresIn: Double
    /// The holder's command line, `rederive watch --db rooms.sqlite`, when it runs on this host and
    /// can be read; nil otherwise.
    public let command: String?

    /// Describes the holder of a lease that is not free.
    public init(worker: String, expiresIn: Double, command: String? = nil) {
        self.worker = worker
        self.expiresIn = expiresIn
        self.command = command
    }
}

/// The answer to ``RecordStore/acquireLease(for:duration:)``.
public enum LeaseAcquisition: Sendable, Hashable {
    /// The lease is this process's until it is released or expires.
    case acquired(WorkerLease)
    /// Another process derives now; try again later.
    case held(by: LeaseHolder)
}
