#if PostgreSQL
import Foundation
import Glibc

/// A cluster of its own that listens inside a network namespace, for tests whose workers reach it
/// over a network (``NetworkNamespaces``).
extension PostgresServer {
    /// The port the cluster listens on: it is alone in its namespace.
    package static let namespacePort = 5432

    /// Starts a new cluster in `namespace`, listening on its loopback and on `address`, and trusting
    /// every client of `network` (as `10.231.0.0/24`). The tests reach it through its socket, which
    /// lives in the cluster's directory. Stop it with ``stop()``; it is not stopped at exit.
    package static func start(inNamespace namespace: String, address: String, trusting network: String) throws -> PostgresServer {
        let directory = try initializeCluster()
        let server = PostgresServer(directory: directory, port: namespacePort, host: directory)
        do {
            let data = "\(directory)/data"
            let rules = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(data)/pg_hba.conf"))
            defer { try? rules.close() }
            try rules.seekToEnd()
            try rules.write(contentsOf: Data("host all all \(network) trust\n".utf8))
            let asServer = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
            try run([NetworkNamespaces.ip, "netns", "exec", namespace] + asServer + [
                "\(binaries)/pg_ctl", "-D", data, "-l", "\(directory)/server.log", "-w", "-t", "60",
                "-o", "-p \(namespacePort) -k \(directory) -c listen_addresses=127.0.0.1,\(address) -c fsync=off -c max_connections=200",
                "start",
            ], asServer: false)
        } catch {
            server.stop()
            throw error
        }
        return server
    }
}
#endif
