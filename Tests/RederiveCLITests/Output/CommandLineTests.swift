import Foundation
import RederiveTestSupport
import RoomScan
import Testing

@Suite("rederive command line", .timeLimit(.minutes(5)))
struct CommandLineTests {
    @Test(arguments: TestStore.available)
    func importSkipsInvalidJSONNamingTheFileAndImportsTheRest(store: TestStore) async throws {
        try await store.withHarness { harness in
            let good = try harness.file("good.json", String(decoding: try RealExports.bytes(RealExports.names[0]), as: UTF8.self))
            let bad = try harness.file("bad.json", "{\"walls\": [")
            let outcome = try await harness.rederive("import", good, bad)
            #expect(outcome.status == 3)
            #expect(outcome.errors.contains("skipped \(bad): not valid JSON"))
            #expect(outcome.output.contains("1 new"))
            #expect(try await harness.rows("SELECT scan_id FROM room_scans") == [["good"]])
        }
    }

    @Test(arguments: TestStore.available)
    func reimportingReplacesOnlyChangedFiles(store: TestStore) async throws {
        try await store.withHarness { harness in
            let text = String(decoding: try RealExports.bytes(RealExports.names[1]), as: UTF8.self)
            let path = try harness.file("room.json", text)
            _ = try await harness.rederive("import", path)
            _ = try await harness.rederive("run", "--progress", "none")
            let same = try await harness.rederive("import", path)
            #expect(same.output.contains("0 new, 0 replaced, 1 unchanged"))
            // The same JSON compressed otherwise is unchanged too.
            let otherLevel = try await harness.rederive("import", "--level", "1", path)
            #expect(otherLevel.output.contains("0 new, 0 replaced, 1 unchanged"))
            #expect(try await harness.rederive("run", "--progress", "none").output.contains("0 derived"))

            _ = try harness.file("room.json", text.replacingOccurrences(of: "\"walls\"", with: "\"ignored\":1,\"walls\""))
            let changed = try await harness.rederive("import", path)
            #expect(changed.output.contains("0 new, 1 replaced, 0 unchanged"))
            let rerun = try await harness.rederive("run", "--progress", "none")
            #expect(rerun.output.contains("0 derived, 1 unchanged"))
        }
    }

    @Test(arguments: TestStore.available)
    func invalidateMakesTheNextRunDeriveOnlyThoseRecordsAndProcessors(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let key = (RealExports.names[2] as NSString).deletingPathExtension
            let marked = try await harness.rederive("invalidate", "--processor", "wall_metrics", "--key", key)
            #expect(marked.status == 0)
            #expect(marked.output.contains("marked 1 record of"))
            let status = try await harness.rederive("status", "--format", "json")
            #expect(status.output.contains("\"stale\" : 1"))
            let run = try await harness.rederive("run", "--progress", "json")
            #expect(run.output.contains("\"event\":\"finished\""))
            #expect(run.output.contains("\"unchanged\":1"))
        }
    }

    @Test(arguments: TestStore.available)
    func progressJSONLinesDescribeTheRun(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let run = try await harness.rederive("run", "--progress", "json", "--batch-size", "4")
            let events = run.output.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(events.first?["event"] as? String == "started")
            #expect(events.first?["total"] as? Int == 13)
            // Every commit holds a batch (4) at most, fewer when the writer's 100 ms pass first.
            let done = events.filter { $0["event"] as? String == "progress" }.compactMap { $0["done"] as? Int }
            #expect(done.last == 13)
            #expect(zip([0] + done, done).allSatisfy { previous, next in next > previous && next - previous <= 4 }, "\(done)")
            #expect(events.last?["derived"] as? Int == 13)
        }
    }

    @Test(arguments: TestStore.available, [
        (["run", "--processor", "nope"], "no processor named \"nope\""),
        (["status", "--pipeline", "nope"], "no pipeline named \"nope\""),
        (["invalidate", "--key", "missing"], "has no record with key \"missing\""),
        (["import", "/nonexistent/file.json"], "no such file or directory: /nonexistent/file.json"),
    ])
    func badInputIsOneLineNamingWhatIsWrong(store: TestStore, input: (arguments: [String], message: String)) async throws {
        let (arguments, message) = input
        try await store.withHarness { harness in
            // An empty database, so that what is wrong is the input and not a missing file.
            _ = try await harness.rederive("run", "--create", "--progress", "none")
            let outcome = try await harness.rederive(arguments)
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains(message), "\(outcome.errors)")
            #expect(outcome.errors.split(separator: "\n").count == 1)
        }
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive("run", "--parallel", "0")
            #expect(outcome.status == 64)
            #expect(outcome.errors.contains("--parallel must be at least 1"))
        }
    }

    @Test(arguments: TestStore.available)
    func historyListsRunsNewestFirst(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none", "--limit", "5")
            _ = try await harness.rederive("run", "--progress", "none")
            let history = try await harness.rederive("history", "--format", "json")
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]])
            #expect(runs.compactMap { $0["id"] as? Int } == [2, 1])
            #expect(runs.compactMap { $0["derived"] as? Int } == [8, 5])
            #expect(runs.allSatisfy { $0["status"] as? String == "completed" && $0["endedAt"] is String })
        }
    }
}
