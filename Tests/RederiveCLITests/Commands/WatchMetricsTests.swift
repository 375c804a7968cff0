#if MetricsEndpoint
import Foundation
import Testing

/// `rederive watch --metrics-address`: the watcher's own endpoint answers, and a real Prometheus
/// server scrapes it and reads back a counter of the records the watcher derived.
@Suite("rederive watch's metrics", .serialized, .timeLimit(.minutes(5)))
struct WatchMetricsTests {
    /// A GET by another program (Python's urllib): the status and the body.
    static func get(_ url: String) throws -> (status: Int, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import sys, urllib.request, urllib.error
            try:
                with urllib.request.urlopen(sys.argv[1], timeout=5) as r: print(r.status); sys.stdout.write(r.read().decode())
            except urllib.error.HTTPError as e:
                print(e.code); sys.stdout.write(e.read().decode())
            """, url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let firstLine = text.prefix { $0 != "\n" }
        return (Int(firstLine) ?? 0, String(text.dropFirst(firstLine.count + 1)))
    }

    /// The port the watcher logged it serves metrics on.
    static func servedPort(_ watcher: RederiveProcess) async throws -> Int {
        var port: Int?
        _ = await WatchCommandTests.eventually(within: 60) {
            let errors = watcher.errorsSoFar()
            guard let line = errors.split(separator: "\n").first(where: { $0.contains("serving metrics") }),
                let address = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
                let colon = address.lastIndex(of: ":")
            else { return watcher.hasEnded }
            port = Int(address[address.index(after: colon)...])
            return true
        }
        return try #require(port, "the watcher never said where it serves metrics: \(watcher.errorsSoFar())")
    }

    @Test func aPrometheusServerReadsTheWatchersCountsBack() async throws {
        let payloads = (0..<30).map { TrapFixtureCorpus.payload(label: "m", index: $0) }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            let watcher = try RederiveProcess.start(
                ["watch", "--db", database, "--parallel", "2", "--metrics-address", "127.0.0.1:0"],
                in: directory, program: WatchCommandTests.program
            )
            defer { watcher.kill() }
            let port = try await Self.servedPort(watcher)
            #expect(try await WatchCommandTests.eventually {
                try WatchCommandTests.count(database, "SELECT count(*) FROM items_derived WHERE total IS NOT NULL") == 30
            }, "\(watcher.errorsSoFar())")

            #expect(try Self.get("http://127.0.0.1:\(port)/healthz").status == 200)
            #expect(try await WatchCommandTests.eventually(within: 30) {
                try Self.get("http://127.0.0.1:\(port)/readyz").status == 200
            })
            let metrics = try Self.get("http://127.0.0.1:\(port)/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.body.contains(#"rederive_records_handled_total{pipeline="items",processor="total",outcome="derived"} 30"#), "\(metrics.body)")
            #expect(metrics.body.contains(#"rederive_build_info{version=""#), "\(metrics.body)")
            #expect(metrics.body.contains("rederive_lease_held 1"), "\(metrics.body)")

            guard PrometheusServer.testsRun else { return }
            let prometheus = try await PrometheusServer.start(scraping: port)
            defer { prometheus.stop() }
            let query = #"rederive_records_handled_total{job="rederive",processor="total",outcome="derived"}"#
            var encoded = URLComponents()
            encoded.queryItems = [URLQueryItem(name: "query", value: query)]
            let url = "http://127.0.0.1:\(prometheus.port)/api/v1/query?" + (encoded.percentEncodedQuery ?? "")
            var last = ""
            // Prometheus takes a second or two to start and scrape: ask until the figure is there.
            let answered = await WatchCommandTests.eventually(within: 60) {
                last = (try? Self.get(url).body) ?? ""
                return last.contains(#""value":["#)
            }
            #expect(answered, "Prometheus never answered \(query): \(last)\nits log:\n\(prometheus.logTail)")
            #expect(last.contains(#""instance":"127.0.0.1:\#(port)""#) && last.contains(#","30"]"#), "\(last)")
        }
    }

    @Test func anAddressThatIsNotHostAndPortIsRefusedInOneLine() async throws {
        try await TrapFixtureCorpus.with([]) { directory, database in
            let outcome = try await RederiveProcess.run(
                ["watch", "--db", database, "--metrics-address", "9464"], in: directory, program: WatchCommandTests.program
            )
            #expect(outcome.status == 64)
            #expect(outcome.errors.contains("--metrics-address:") && outcome.errors.contains("HOST:PORT"), "\(outcome.errors)")
        }
    }
}
#endif
