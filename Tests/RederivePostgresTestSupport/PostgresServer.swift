#if PostgreSQL
import Foundation
import Glibc
import RederiveCLI
import RederiveTestSupport
import Testing

/// A throwaway PostgreSQL 15 cluster for the tests: `initdb` and `pg_ctl` on a temporary directory and
/// a free port, as user `postgres` when the tests run as root. One cluster serves every test of the
/// process, each on a database of its own; it is stopped and deleted when the process exits.
///
/// Without the server binaries the tests are skipped with the reason, unless
/// `REDERIVE_REQUIRE_POSTGRES=1`, which makes a missing server a failure.
package final class PostgresServer: Sendable {
    package static let binaries = ProcessInfo.processInfo.environment["REDERIVE_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Whether the server binaries are on this machine.
    package static var binariesPresent: Bool {
        FileManager.default.isExecutableFile(atPath: "\(binaries)/initdb")
    }

    /// Whether the PostgreSQL tests run: the binaries are here, or they are required (and then their
    /// absence fails the tests rather than skipping them).
    package static var testsRun: Bool {
        binariesPresent || ProcessInfo.processInfo.environment["REDERIVE_REQUIRE_POSTGRES"] == "1"
    }

    package static let skipReason: Comment = "no PostgreSQL server binaries at \(binaries) (set REDERIVE_REQUIRE_POSTGRES=1 to fail instead)"

    package let directory: String
    package let port: Int
    /// Where `psql` and `createdb` reach the cluster from the tests: 127.0.0.1, or the directory of its
    /// socket when it listens in a network namespace of its own.
    package let host: String

    package init(directory: String, port: Int, host: String = "127.0.0.1") {
        self.directory = directory
        self.port = port
        self.host = host
    }

    private static let started: Result<PostgresServer, ServerError> = Result { try start() }.mapError { $0 as? ServerError ?? ServerError("\($0)") }

    /// The cluster of this test process, started on first use.
    package static func shared() throws -> PostgresServer {
        try started.get()
    }

    /// A new, empty database on the cluster, as a URL for `--db`.
    package func makeDatabase() throws -> String {
        let name = "rederive_test_\(UUID().uuidString.prefix(8).lowercased())"
        try Self.run(["\(Self.binaries)/createdb", "-h", host, "-p", String(port), "-U", "postgres", name], asServer: false)
        return url(database: name)
    }

    package func url(database: String, user: String = "postgres") -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// The database a URL of ``url(database:user:)`` names.
    package static func databaseName(in url: String) -> String {
        String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
    }

    /// Runs `psql -c sql` on `database`, returning its unaligned output.
    @discardableResult
    package func psql(_ database: String, _ sql: String) throws -> String {
        try Self.run(
            ["\(Self.binaries)/psql", "-h", host, "-p", String(port), "-U", "postgres", "-d", database,
             "-v", "ON_ERROR_STOP=1", "-A", "-t", "-q", "-c", sql],
            asServer: false
        )
    }

    /// The rows of a query, tab-separated fields, NULL as `nullCellText`.
    package func psqlRows(_ database: String, _ sql: String) throws -> [[String]] {
        let output = try Self.run(
            ["\(Self.binaries)/psql", "-h", host, "-p", String(port), "-U", "postgres", "-d", database,
             "-v", "ON_ERROR_STOP=1", "-A", "-t", "-q", "-F", "\t", "-P", "null=\(nullCellText)", "-c", sql],
            asServer: false
        )
        return output.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    private static func start() throws -> PostgresServer {
        let asRoot = geteuid() == 0
        let directory = try initializeCluster()
        let port = try freePort()
        let data = "\(directory)/data"
        try run([
            "\(binaries)/pg_ctl", "-D", data, "-l", "\(directory)/server.log", "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            "start",
        ], asServer: asRoot)
        let server = PostgresServer(directory: directory, port: port)
        atexit {
            guard case .success(let server) = PostgresServer.started else { return }
            server.stop()
        }
        return server
    }

    /// A new cluster's directory, its data in `data`, owned by the user the server runs as.
    package static func initializeCluster() throws -> String {
        guard binariesPresent else { throw ServerError("\(skipReason)") }
        let asRoot = geteuid() == 0
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if asRoot {
            // The server runs as postgres: it owns the cluster's directory.
            try run(["/bin/chown", "postgres:postgres", directory], asServer: false)
        }
        try run(["\(binaries)/initdb", "-D", "\(directory)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], asServer: asRoot)
        return directory
    }

    /// Stops the cluster at once and deletes its directory.
    package func stop() {
        _ = try? Self.run(["\(Self.binaries)/pg_ctl", "-D", "\(directory)/data", "-m", "immediate", "-w", "stop"], asServer: geteuid() == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A TCP port no one listens on now.
    package static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw ServerError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a command to its end (as `postgres` through runuser when asked); its output, or an error
    /// with what it wrote.
    @discardableResult
    package static func run(_ arguments: [String], asServer: Bool) throws -> String {
        let command = asServer ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
        // A file, not a pipe: the server started by pg_ctl would hold a pipe open for as long as it runs.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-pg-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { _ = close(input); _ = close(output) }
        let child = try ChildProcess(executable: command[0], arguments: Array(command.dropFirst()), input: input, output: output, error: output)
        let ending = child.wait()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard case .exited(0) = ending else {
            throw ServerError("\(arguments.first ?? "") failed (\(ending)): \(text)")
        }
        return text
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
#endif
