#if PostgreSQL
import Foundation
import Glibc

/// A cluster of its own that accepts only TLS connections, with a server certificate for `localhost`
/// signed by a throwaway certificate authority, for the tests of `sslmode`.
extension PostgresServer {
    /// The cluster, and the PEM files of the authority that signed its certificate and of another one.
    package struct TLSCluster {
        package let server: PostgresServer
        package let authority: String
        package let otherAuthority: String
    }

    /// Starts a new cluster on a free port of 127.0.0.1 whose `pg_hba.conf` trusts TLS connections and
    /// rejects the others. Stop it with ``stop()``.
    package static func startWithTLS() throws -> TLSCluster {
        let directory = try initializeCluster()
        let port = try freePort()
        let server = PostgresServer(directory: directory, port: port)
        do {
            let data = "\(directory)/data"
            let certificates = "\(directory)/certificates"
            try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
            try makeAuthority("\(certificates)/ca", name: "rederive test authority")
            try makeAuthority("\(certificates)/other", name: "another authority")
            try Data("subjectAltName=DNS:localhost\n".utf8).write(to: URL(fileURLWithPath: "\(certificates)/server.ext"))
            try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(data)/server.key", "-out", "\(certificates)/server.csr", "-subj", "/CN=localhost"])
            try openssl([
                "x509", "-req", "-in", "\(certificates)/server.csr", "-CA", "\(certificates)/ca.crt", "-CAkey", "\(certificates)/ca.key",
                "-CAcreateserial", "-out", "\(data)/server.crt", "-days", "2", "-extfile", "\(certificates)/server.ext",
            ])
            if geteuid() == 0 {
                try run(["/bin/chown", "postgres:postgres", "\(data)/server.key", "\(data)/server.crt"], asServer: false)
            }
            try run(["/bin/chmod", "600", "\(data)/server.key"], asServer: false)
            // The first line that matches decides: TLS connections are trusted, the others rejected.
            try Data("hostssl all all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 reject\nlocal all all trust\n".utf8)
                .write(to: URL(fileURLWithPath: "\(data)/pg_hba.conf"))
            try run([
                "\(binaries)/pg_ctl", "-D", data, "-l", "\(directory)/server.log", "-w", "-t", "60",
                "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c ssl=on",
                "start",
            ], asServer: geteuid() == 0)
        } catch {
            server.stop()
            throw error
        }
        return TLSCluster(server: server, authority: "\(directory)/certificates/ca.crt", otherAuthority: "\(directory)/certificates/other.crt")
    }

    /// A self-signed authority: `path.key` and `path.crt`.
    private static func makeAuthority(_ path: String, name: String) throws {
        try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(path).key", "-out", "\(path).crt", "-days", "2", "-subj", "/CN=\(name)"])
    }

    private static func openssl(_ arguments: [String]) throws {
        try run(["/usr/bin/openssl"] + arguments, asServer: false)
    }
}
#endif
