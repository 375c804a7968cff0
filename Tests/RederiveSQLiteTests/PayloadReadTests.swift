import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import Testing

/// A claimed payload is read as what its column holds, whatever SQLite stores there: a BLOB that spans
/// many overflow pages, JSON text, NULL, a number or nothing at all. The run hands each to the decoder
/// as before (the number as its text), which derives it or names the problem.
@Suite("Payloads of every storage class", .timeLimit(.minutes(5)))
struct PayloadReadTests {
    /// A label of `count` characters that deflate cannot shrink below many pages.
    static func scrambledLabel(_ count: Int) -> String {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return letters[Int(state >> 33) % letters.count]
        })
    }

    @Test func eachStorageClassDerivesOrFailsAsItsBytesSay() async throws {
        try await withTemporaryDatabase { path in
            let long = Self.scrambledLabel(60_000)
            let largeBlob = PayloadCodec.encode(Array(sampleJSON(long, [1, 2, 3]).utf8), as: .zlib)
            #expect(largeBlob.count > 10 * 4096, "the payload must span overflow pages")
            let db = try appConnection(path)
            try await db.write { db in
                try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, payload)")
                let rows: [(String, (any DatabaseValueConvertible)?)] = [
                    ("large", Data(largeBlob)),
                    ("small", Data(PayloadCodec.encode(Array(sampleJSON("small", [4, 5]).utf8), as: .zlib))),
                    ("text", sampleJSON("text", [6])),
                    ("null", nil),
                    ("number", 42),
                    ("real", 2.5),
                    ("empty", Data()),
                    ("after", Data(PayloadCodec.encode(Array(sampleJSON("after", [7, 8, 9]).utf8), as: .zlib))),
                ]
                for (key, payload) in rows {
                    try db.execute(sql: "INSERT INTO items (key, payload) VALUES (?, ?)", arguments: [key, payload])
                }
            }
            try db.close()
            let pipeline = TestPipeline().pipeline
            try await prepare(pipeline, at: path)
            // One worker and one batch: every storage class in the same read, in id order.
            let summary = try await run(pipeline, at: path, Runner.Configuration(parallelism: 1, batchSize: 16))
            #expect(summary.counts.changed == 4)

            let inspection = Inspection(path: path)
            #expect(try inspection.value("total", key: "large", as: Double.self) == 6)
            #expect(try inspection.value("label_upper", key: "large", as: String.self) == long.uppercased())
            #expect(try inspection.value("total", key: "small", as: Double.self) == 9)
            #expect(try inspection.value("total", key: "text", as: Double.self) == 6)
            #expect(try inspection.value("total", key: "after", as: Double.self) == 24)

            let failures = try await SQLiteStore(path: path).failures(of: pipeline, filter: FailureFilter(processors: ["total"]))
            let messages = Dictionary(uniqueKeysWithValues: failures.map { ($0.key ?? "", $0.message) })
            #expect(Set(messages.keys) == ["null", "number", "real", "empty"])
            #expect(messages["null"] == "payload is NULL")
            // A number reaches the decoder as its text, which is JSON but not a sample.
            for key in ["number", "real", "empty"] {
                #expect(messages[key] != nil && messages[key] != "payload is NULL", "\(key): \(messages[key] ?? "none")")
            }
            #expect(messages["number"] != messages["empty"])
        }
    }
}
