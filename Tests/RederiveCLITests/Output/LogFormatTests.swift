import Foundation
import Testing

/// `--log-format json`: every line the engine logs is one JSON object, with the run, worker and
/// pipeline beside the time, level, message and label.
@Suite("Log format", .timeLimit(.minutes(5)))
struct LogFormatTests {
    @Test func jsonWritesOneObjectPerLineNamingTheRunWorkerAndPipeline() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "60", "--seed", "9", "--corrupt", "0.1")
            let logged = try await harness.rederive("run", "--progress", "none", "--log-level", "info", "--log-format", "json")
            #expect(logged.status == 3)
            let lines = logged.errors.split(separator: "\n").map(String.init)
            #expect(lines.count >= 3)
            var objects: [[String: Any]] = []
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                guard let object else {
                    Issue.record("not a JSON object: \(line)")
                    continue
                }
                objects.append(object)
                for key in ["time", "level", "message", "label", "run", "worker", "pipeline"] {
                    #expect(object[key] is String, "\(key) missing in \(line)")
                }
                #expect(object["label"] as? String == "rederive.run")
                #expect(object["pipeline"] as? String == "roomscan")
                #expect((object["time"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) } != nil)
            }
            let messages = objects.compactMap { $0["message"] as? String }
            #expect(messages.first == "run started")
            #expect(messages.last == "run ended")
            let failures = objects.filter { $0["message"] as? String == "record failed" }
            #expect(!failures.isEmpty)
            #expect(failures.allSatisfy { $0["level"] as? String == "info" && $0["processor"] is String && $0["record"] is String })
            // One run: every line names the same one.
            #expect(Set(objects.compactMap { $0["run"] as? String }).count == 1)
        }
    }

    @Test func textStaysTheDefaultAndAnUnknownFormatIsAUsageError() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "5", "--seed", "3")
            let text = try await harness.rederive("run", "--progress", "none", "--log-level", "info")
            #expect(text.errors.split(separator: "\n").allSatisfy { !$0.hasPrefix("{") && $0.contains(" info ") })
            let unknown = try await harness.rederive("run", "--log-format", "xml")
            #expect(unknown.status == 64)
            #expect(unknown.errors.contains("--log-format"))
        }
    }
}
