import Foundation
import Rederive
import RederiveSQLite

/// What the report tests store: `{"value": 12.5, "label": "a"}`.
struct Reading: Decodable, Sendable {
    let value: Double
    let label: String
}

struct Refusal: Error, CustomStringConvertible {
    var description: String { "refusing a <b>bad</b> reading" }
}

/// A pipeline over `readings (id, key, payload)` whose logic changes between version 1 and 2:
/// - `scaled` (REAL): the value; version 2 multiplies by 1.01, and by 400 for the label "big".
/// - `label_upper` (TEXT): the label; version 2 upper-cases it.
/// - `rounded` (INTEGER, version 1 in both): the value rounded, which never changes.
/// - version 2 of `scaled` fails for the label "bad".
func readingsPipeline(version: Int) -> Pipeline {
    let scaled = Processor<Reading>.real("scaled", version: version) { reading in
        guard version > 1 else { return reading.value }
        if reading.label == "bad" { throw Refusal() }
        return reading.value * (reading.label == "big" ? 400 : 1.01)
    }
    let label = Processor<Reading>.text("label_upper", version: version) { reading in
        version > 1 ? reading.label.uppercased() : reading.label
    }
    let rounded = Processor<Reading>.integer("rounded", version: 1) { reading in
        Int(reading.value.rounded())
    }
    return Pipeline(
        name: "readings", table: "readings", keyColumn: "key", decoding: Reading.self,
        processors: [scaled, label, rounded]
    )
}

/// A database in a fresh temporary directory with `count` readings derived at version 1, plus the
/// hostile keys `<script>alert(1)</script>`, labelled "big", and `<img src=x onerror=alert(2)>`,
/// labelled "bad", and one labelled `<u>x</u>`.
func withDerivedReadings<T>(count: Int, _ body: (String, SQLiteStore) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-report-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("test.sqlite").path
    let store = try SQLiteStore(path: path)
    let pipeline = readingsPipeline(version: 1)
    try await store.prepare(pipeline)
    var payloads: [(key: String, payload: [UInt8])] = (0..<count).map { index in
        ("reading-\(index)", Array("{\"value\": \(Double(index % 50) + 0.5), \"label\": \"r\(index % 3)\"}".utf8))
    }
    payloads.append(("<script>alert(1)</script>", Array("{\"value\": 2.0, \"label\": \"big\"}".utf8)))
    payloads.append(("markup", Array("{\"value\": 4.0, \"label\": \"<u>x</u>\"}".utf8)))
    payloads.append(("<img src=x onerror=alert(2)>", Array("{\"value\": 3.0, \"label\": \"bad\"}".utf8)))
    _ = try await store.importPayloads(payloads, into: pipeline)
    _ = try await Runner(store: store, pipelines: [pipeline]).run()
    return try await body(path, store)
}
