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
    /// When the process started, where known: tells it from a later process given the same pid.
    public let start: ProcessStart?

    /// Describes a process; ``current`` describes this one.
    public init(host: String, processID: Int32, start: ProcessStart? = nil) {
        self.host = host
        self.processID = processID
        self.start = start
    }

    /// This process.
    public static var current: WorkerIdentity {
        let processID = ProcessInfo.processInfo.processIdentifier
        return WorkerIdentity(host: thisHost, processID: processID, start: ProcessStart.of(processID))
    }

    /// This machine's host name, looked up once: a store that checks other workers often must not
    /// ask the resolver each time.
    public static let thisHost = ProcessInfo.processInfo.hostName

    /// True when this names a process of this machine that no longer runs: a run killed with SIGKILL
    /// or crashed, whose lease nobody needs to wait out. A process on another host, or one that still
    /// runs, is never taken for ended.
    ///
    /// With its ``start`` known, a process whose pid now belongs to a process started later has ended
    /// too; and one whose start names another boot or pid namespace (a machine or container of the
    /// same host name) is never taken for ended, since its pid is not this machine's to look up.
    public var hasEndedOnThisHost: Bool {
        guard host == Self.thisHost, processID > 0 else { return false }
        if let start {
            guard let here = ProcessStart.current, here.bootID == start.bootID, here.pidNamespace == start.pidNamespace else { return false }
        }
        if kill(processID, 0) == -1 && errno == ESRCH { return true }
        // The pid runs: the same process only if it started when the one named did.
        guard let start, let running = ProcessStart.of(processID) else { return false }
        return running != start
    }

    /// The process's command line as it was started, its program named without its directory
    /// (`rederive watch --db rooms.sqlite`), when it runs on this host and its arguments can be read.
    public var commandLine: String? {
        guard host == Self.thisHost, processID > 0,
              let bytes = FileManager.default.contents(atPath: "/proc/\(processID)/cmdline"), !bytes.isEmpty
        else { return nil }
        var words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if words.last?.isEmpty == true { words.removeLast() }
        guard let program = words.first else { return nil }
        words[0] = (program as NSString).lastPathComponent
        return words.joined(separator: " ")
    }

    /// `pid 4711 on build-3`, for messages.
    public var description: String { "pid \(processID) on \(host)" }
}
