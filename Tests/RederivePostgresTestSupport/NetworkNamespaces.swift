import Foundation
import Glibc
import RederiveCLI
import Synchronization

/// Hosts on a private network of their own, each a Linux network namespace: a server, whose namespace
/// holds a bridge (the switch, `10.231.0.1/24`), and workers, each joined to a port of the switch by a
/// veth pair (`10.231.0.10`, `.11`, …). The namespaces see nothing of this machine's network, so
/// the subnet cannot collide with it, and their names are unique to each instance.
///
/// Creating them takes `CAP_SYS_ADMIN` and `CAP_NET_ADMIN` (root); without them ``create(workers:)``
/// throws ``Unavailable`` with the reason. ``tearDown()`` deletes the namespaces, and their links
/// with them.
package final class NetworkNamespaces: Sendable {
    package static let ip = "/usr/sbin/ip"
    package static let subnet = "10.231.0"

    /// The server's namespace.
    package let server: String
    /// One namespace per worker, in order.
    package let workers: [String]
    private let removed = Mutex(false)

    /// The server's address on the private network.
    package var serverAddress: String { "\(Self.subnet).1" }
    /// The private network, as pg_hba.conf and `ip` write it.
    package var network: String { "\(Self.subnet).0/24" }

    package func workerAddress(_ index: Int) -> String { "\(Self.subnet).\(10 + index)" }

    /// The command prefix that runs a program in `namespace`; `ip netns exec` execs it in place, so
    /// the process keeps the pid it was started with.
    package func exec(in namespace: String) -> [String] { [Self.ip, "netns", "exec", namespace] }

    private init(id: String, workers: Int) {
        server = "rederive-\(id)-db"
        self.workers = (0..<workers).map { "rederive-\(id)-w\($0)" }
    }

    /// Creates the server's namespace with its switch, and `count` workers' namespaces plugged into it,
    /// every link up. Leaves nothing behind when it throws.
    package static func create(workers count: Int) throws(Unavailable) -> NetworkNamespaces {
        let hosts = NetworkNamespaces(id: UUID().uuidString.prefix(8).lowercased(), workers: count)
        do {
            for namespace in [hosts.server] + hosts.workers {
                try run("netns", "add", namespace)
                try run("-n", namespace, "link", "set", "lo", "up")
            }
            try run("-n", hosts.server, "link", "add", "switch", "type", "bridge")
            try run("-n", hosts.server, "address", "add", "\(hosts.serverAddress)/24", "dev", "switch")
            try run("-n", hosts.server, "link", "set", "switch", "up")
            for (index, worker) in hosts.workers.enumerated() {
                // The worker's end is its eth0; the server's end is the switch's port.
                try run("-n", hosts.server, "link", "add", port(index), "type", "veth", "peer", "name", "eth0", "netns", worker)
                try run("-n", hosts.server, "link", "set", port(index), "master", "switch", "up")
                try run("-n", worker, "address", "add", "\(hosts.workerAddress(index))/24", "dev", "eth0")
                try run("-n", worker, "link", "set", "eth0", "up")
            }
        } catch {
            hosts.tearDown()
            throw Unavailable(description: "\(error)")
        }
        return hosts
    }

    /// Unplugs worker `index` from the switch (`up: false`) or plugs it back: its own link stays up,
    /// and whatever it or the server sends meanwhile is lost, as when a cable is pulled.
    package func setLink(ofWorker index: Int, up: Bool) throws(CommandFailure) {
        try Self.run("-n", server, "link", "set", Self.port(index), up ? "up" : "down")
    }

    /// Deletes every namespace, with its links. Call once the processes started in them have ended:
    /// a namespace outlives its name while a process still runs in it.
    package func tearDown() {
        let first = removed.withLock { removed in
            defer { removed = true }
            return !removed
        }
        guard first else { return }
        for namespace in [server] + workers {
            try? Self.run("netns", "delete", namespace)
        }
    }

    private static func port(_ index: Int) -> String { "port\(index)" }

    /// Runs `ip arguments` to its end.
    private static func run(_ arguments: String...) throws(CommandFailure) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-ip-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { _ = close(input); _ = close(output) }
        let command = "ip " + arguments.joined(separator: " ")
        let ending: ChildProcess.Ending
        do {
            ending = try ChildProcess(executable: ip, arguments: arguments, input: input, output: output, error: output).wait()
        } catch {
            throw CommandFailure(description: "\(command): \(error)")
        }
        guard case .exited(0) = ending else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw CommandFailure(description: "\(command) failed (\(ending)): \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    package struct CommandFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Why this process cannot create the namespaces.
    package struct Unavailable: Error, CustomStringConvertible {
        package let description: String
    }
}
