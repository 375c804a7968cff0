import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When a process started, as its machine tells it: the kernel's boot id, the pid namespace its pid
/// is numbered in, and its start in clock ticks since boot (`/proc/PID/stat`, field 22).
///
/// A pid is reused once its process ends; a pid and its start are not, so a lease that keeps both
/// tells its process from a later one given the same pid. Known on Linux only; nil elsewhere.
public struct ProcessStart: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `/proc/sys/kernel/random/boot_id`: a new value at every boot of the machine.
    public let bootID: String
    /// The pid namespace, as `/proc/self/ns/pid` names it (`pid:[4026531836]`): pids of another
    /// namespace (another container) are not this one's to look up.
    public let pidNamespace: String
    /// Clock ticks since boot when the process started.
    public let ticks: UInt64

    /// Describes a process's start.
    public init(bootID: String, pidNamespace: String, ticks: UInt64) {
        self.bootID = bootID
        self.pidNamespace = pidNamespace
        self.ticks = ticks
    }

    /// Reads back ``description``; nil for text in another form.
    public init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 3, let ticks = UInt64(parts[2]) else { return nil }
        self.init(bootID: String(parts[0]), pidNamespace: String(parts[1]), ticks: ticks)
    }

    /// `boot-id pid-namespace ticks`, as a lease keeps it.
    public var description: String { "\(bootID) \(pidNamespace) \(ticks)" }

    /// The start of process `processID` of this process's pid namespace; nil when it does not run, or
    /// this machine does not say (not Linux, or `/proc` hides it).
    public static func of(_ processID: Int32) -> ProcessStart? {
        guard processID > 0,
              let boot = contents(of: "/proc/sys/kernel/random/boot_id")?.trimmingCharacters(in: .whitespacesAndNewlines),
              let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid"),
              let stat = contents(of: "/proc/\(processID)/stat"),
              // The command name, in parentheses, may hold spaces and parentheses: fields count from the last `)`.
              let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the name come field 3 (the state) onwards: field 22 is the 20th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count >= 20, let ticks = UInt64(fields[19]) else { return nil }
        return ProcessStart(bootID: boot, pidNamespace: namespace, ticks: ticks)
    }

    /// The start of this process.
    public static var current: ProcessStart? { of(getpid()) }

    /// The text of a small file of `/proc`, whose size the file system does not tell.
    private static func contents(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
