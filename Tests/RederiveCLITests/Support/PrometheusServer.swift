#if MetricsEndpoint
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Debian's Prometheus server, started on loopback with a data directory of its own, scraping one
/// target every second.
struct PrometheusServer {
    static let executable = "/usr/bin/prometheus"

    /// Whether the Prometheus tests run: the server is installed, or it is required (`.ci/run` sets
    /// `REDERIVE_REQUIRE_PROMETHEUS=1`, and then its absence fails the tests rather than skipping them).
    static var testsRun: Bool {
        FileManager.default.isExecutableFile(atPath: executable)
            || ProcessInfo.processInfo.environment["REDERIVE_REQUIRE_PROMETHEUS"] == "1"
    }

    static let skipReason: Comment =
        "prometheus is not installed (apt-get install prometheus; set REDERIVE_REQUIRE_PROMETHEUS=1 to fail instead)"

    let process: Process
    let directory: URL
    /// The port of Prometheus' own HTTP API.
    let port: Int

    /// Starts a server that scrapes `127.0.0.1:targetPort/metrics` every second, as job `rederive`.
    static func start(scraping targetPort: Int) async throws -> PrometheusServer {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw PrometheusError("prometheus is not installed at \(executable) (apt-get install prometheus)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: rederive
                scrape_interval: 1s
                scrape_timeout: 1s
                static_configs:
                  - targets: ["127.0.0.1:\(targetPort)"]
            """
        let configurationFile = directory.appendingPathComponent("prometheus.yml")
        try Data(configuration.utf8).write(to: configurationFile)
        let port = try await freePort()
        let log = directory.appendingPathComponent("prometheus.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw PrometheusError("cannot create \(log.path)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--config.file=\(configurationFile.path)",
            "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)",
        ]
        // One Go thread at a time is enough for one target, and keeps the test light on a loaded machine.
        process.environment = ["GOMAXPROCS": "1", "PATH": "/usr/bin:/bin"]
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return PrometheusServer(process: process, directory: directory, port: port)
    }

    /// The last lines Prometheus logged, for a failure's message.
    var logTail: String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("prometheus.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(15).joined(separator: "\n")
    }

    /// Stops the server and removes its directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A port nothing listens on now, from the system: bound on loopback, then released.
    private static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}

/// Something Prometheus did not do as expected.
struct PrometheusError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
