#if PostgreSQL
import Foundation
import Glibc

/// A primary of its own with a streaming standby (`pg_basebackup -R`), both on loopback: for the test
/// of `--max-replica-lag`, which pauses the standby's replay.
package struct ReplicatedServers {
    package let primary: PostgresServer
    package let standby: PostgresServer

    /// Starts a primary and a standby that streams from it, and waits until the primary sees it.
    package static func start() throws -> ReplicatedServers {
        let asRoot = geteuid() == 0
        let primaryDirectory = try PostgresServer.initializeCluster()
        let primaryPort = try PostgresServer.freePort()
        try PostgresServer.run([
            "\(PostgresServer.binaries)/pg_ctl", "-D", "\(primaryDirectory)/data", "-l", "\(primaryDirectory)/server.log", "-w", "-t", "60",
            "-o", "-p \(primaryPort) -k \(primaryDirectory) -c listen_addresses=127.0.0.1 -c fsync=off -c wal_level=replica -c max_wal_senders=4",
            "start",
        ], asServer: asRoot)
        let primary = PostgresServer(directory: primaryDirectory, port: primaryPort)
        do {
            let standbyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-pg-standby-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: standbyDirectory, withIntermediateDirectories: true)
            if asRoot {
                try PostgresServer.run(["/bin/chown", "postgres:postgres", standbyDirectory], asServer: false)
            }
            try PostgresServer.run([
                "\(PostgresServer.binaries)/pg_basebackup", "-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres",
                "-D", "\(standbyDirectory)/data", "-R", "-X", "stream", "--no-sync",
            ], asServer: asRoot)
            let standbyPort = try PostgresServer.freePort()
            try PostgresServer.run([
                "\(PostgresServer.binaries)/pg_ctl", "-D", "\(standbyDirectory)/data", "-l", "\(standbyDirectory)/server.log", "-w", "-t", "60",
                "-o", "-p \(standbyPort) -k \(standbyDirectory) -c listen_addresses=127.0.0.1 -c fsync=off -c hot_standby=on",
                "start",
            ], asServer: asRoot)
            let standby = PostgresServer(directory: standbyDirectory, port: standbyPort)
            let deadline = ContinuousClock.now + .seconds(60)
            while try primary.psql("postgres", "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
                .trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
                guard ContinuousClock.now < deadline else {
                    standby.stop()
                    throw PostgresServer.ServerError("the standby never streamed from the primary")
                }
                usleep(100_000)
            }
            return ReplicatedServers(primary: primary, standby: standby)
        } catch {
            primary.stop()
            throw error
        }
    }

    /// Stops both clusters and deletes their directories.
    package func stop() {
        standby.stop()
        primary.stop()
    }
}
#endif
