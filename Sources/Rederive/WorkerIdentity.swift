import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who is deriving: one process taking part in runs of a store.
public struct WorkerIdentity: Sendable, Hashable, Codable {
    /// The machine's host name.
    public let host: String
    /// The process's id on that machine.
    public let processID: Int32

    /// Describes a process; ``current`` describes this one.
    public init(host: String, processID: Int32) {
        self.host = host
        self.processID = processID
    }

    /// This process.
    public static var current: WorkerIdentity {
        WorkerIdentity(host: ProcessInfo.processInfo.hostName, processID: ProcessInfo.processInfo.processIdentifier)
    }

    /// True when this names a process of this machine that no longer runs: a run killed with SIGKILL
    /// or crashed, whose lease nobody needs to wait out. A process on another host, or one that still
    /// runs, is never taken for ended.
    public var hasEndedOnThisHost: Bool {
        guard host == ProcessInfo.processInfo.hostName, processID > 0 else { return false }
        return kill(processID, 0) == -1 && errno == ESRCH
    }

    /// `pid 4711 on build-3`, for messages.
    public var description: String { "pid \(processID) on \(host)" }
}
