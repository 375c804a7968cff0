// rederive-floor: the benchmark's helper executable (not part of the product).
//
//   rederive-floor inflate DB THREADS [LIBRARY] [fresh]
//                                                the floor: read every payload of room_scans and only
//                                                inflate it with RederiveCodec, on THREADS threads, each
//                                                reading its own id range on its own connection; LIBRARY
//                                                is libdeflate (the default where it loads) or zlib;
//                                                `fresh` gives every payload a codec of its own, as
//                                                before workers reused their decompressor and buffer
//   rederive-floor prepare DB LAYOUT             create the RoomScan schema in LAYOUT (inline|companion)
//   rederive-floor run DB LAYOUT PARALLEL [noprojection]
//                                                rederive's Runner with RoomScan.pipeline(layout: LAYOUT);
//                                                `noprojection` without its projection (before issue 24)
//   rederive-floor invalidate DB LAYOUT NAME     mark every record stale for processor NAME
//   rederive-floor seed DB                       the pattern apps start with: fetch every record,
//                                                inflate with zlib, decode with JSONDecoder, derive the
//                                                five RoomScan columns, save them all in one transaction
import Dispatch
import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RoomScan
import RoomScanReference
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("rederive-floor: \(message)\n".utf8))
    exit(2)
}

/// RoomScan's pipeline as it was before it declared a projection: it writes and reads none.
func withoutProjection(_ pipeline: Pipeline) -> Pipeline {
    Pipeline(
        name: pipeline.name, table: pipeline.table, idColumn: pipeline.idColumn, keyColumn: pipeline.keyColumn,
        payloadColumn: pipeline.payloadColumn, layout: pipeline.layout, decode: { json in try CapturedRoom(json: json) },
        processors: RoomScan.processors
    )
}

func pipeline(_ layout: String) -> Pipeline {
    switch layout {
    case "inline": RoomScan.pipeline(layout: .inline)
    case "companion": RoomScan.pipeline
    default: fail("layout must be inline or companion, not \(layout)")
    }
}

/// Reads and inflates every payload; returns (records, compressed bytes, inflated bytes, failures).
func inflateAll(path: String, threads: Int, library: InflateLibrary, fresh: Bool) throws -> (Int, Int, Int, Int) {
    var readOnly = Configuration()
    readOnly.readonly = true
    let configuration = readOnly
    let probe = try DatabaseQueue(path: path, configuration: configuration)
    let (low, high) = try probe.read { db in
        let row = try Row.fetchOne(db, sql: "SELECT min(id), max(id) FROM room_scans")!
        return ((row[0] as Int64?) ?? 0, (row[1] as Int64?) ?? -1)
    }
    try probe.close()
    let span = high - low + 1
    let totals = Mutex((0, 0, 0, 0))
    let errors = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: threads) { part in
        let from = low + span * Int64(part) / Int64(threads)
        let to = low + span * Int64(part + 1) / Int64(threads)
        let kept = PayloadCodec(library: library)
        var records = 0, compressed = 0, inflated = 0, failed = 0
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in
                let rows = try Row.fetchCursor(db, sql: "SELECT payload FROM room_scans WHERE id >= ? AND id < ? ORDER BY id",
                                               arguments: [from, to])
                while let row = try rows.next() {
                    // Borrow the blob in place, as a store could; copy it once into the codec's input type.
                    let bytes: [UInt8] = try row.withUnsafeData(atIndex: 0) { data in data.map { [UInt8]($0) } ?? [] }
                    records += 1
                    compressed += bytes.count
                    do {
                        let codec = fresh ? PayloadCodec(library: library) : kept
                        inflated += try codec.decode(bytes).count
                    } catch {
                        failed += 1
                    }
                }
            }
        } catch {
            errors.withLock { $0.append("\(error)") }
        }
        totals.withLock { $0 = ($0.0 + records, $0.1 + compressed, $0.2 + inflated, $0.3 + failed) }
    }
    if let first = errors.withLock({ $0.first }) { fail(first) }
    return totals.withLock { $0 }
}

/// The one-off loop an app writes before it has rederive: everything in memory, one thread, no stamps.
func seedPattern(path: String) throws -> Int {
    let queue = try DatabaseQueue(path: path)
    let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT id, payload FROM room_scans") }
    let codec = PayloadCodec()
    let decoder = JSONDecoder()
    var derived: [(Int64, [DatabaseValue])] = []
    for row in rows {
        let payload: Data = row["payload"]
        let json = try codec.decode([UInt8](payload))
        let room = try decoder.decode(CapturedRoom.self, from: Data(json))
        // In the order the pipeline lists them, each processor after those it reads.
        var byProcessor: [String: [DerivedValue]] = [:]
        for processor in RoomScan.processors {
            byProcessor[processor.name] = try processor.derive(room, inputs: InputValues(byProcessor))
        }
        let values = RoomScan.processors.flatMap { byProcessor[$0.name] ?? [] }
        derived.append((row["id"], values.map(\.databaseValue)))
    }
    let columns = RoomScan.pipeline.outputColumns.map(\.name)
    try queue.write { db in
        let statement = try db.makeStatement(sql: """
            INSERT OR REPLACE INTO room_scans_derived (id, \(columns.joined(separator: ", ")))
            VALUES (?\(String(repeating: ", ?", count: columns.count)))
            """)
        for (id, values) in derived {
            try statement.execute(arguments: StatementArguments([id.databaseValue] + values))
        }
    }
    return derived.count
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "seed", arguments.count == 2 {
    let clock = ContinuousClock()
    let start = clock.now
    let count = try seedPattern(path: Array(arguments)[1])
    print(String(format: "seed pattern: %d records in %.3f s", count, (clock.now - start) / .seconds(1)))
    exit(0)
}
guard let command = arguments.first, arguments.count >= 3 else {
    fail("usage: rederive-floor inflate DB THREADS [libdeflate|zlib] | prepare DB LAYOUT | run DB LAYOUT PARALLEL | invalidate DB LAYOUT NAME")
}
let rest = Array(arguments.dropFirst())
let clock = ContinuousClock()
let start = clock.now
switch command {
case "inflate":
    guard let threads = Int(rest[1]), threads > 0 else { fail("THREADS must be a positive integer") }
    let library = rest.count > 2 ? InflateLibrary(rawValue: rest[2]) : .preferred
    guard let library else { fail("LIBRARY must be libdeflate or zlib") }
    if library == .libdeflate, LibDeflate.loaded == nil { fail("libdeflate is not available: \(LibDeflate.availability)") }
    let fresh = rest.count > 3 && rest[3] == "fresh"
    let (records, compressed, inflated, failed) = try inflateAll(path: rest[0], threads: threads, library: library, fresh: fresh)
    let seconds = (clock.now - start) / .seconds(1)
    print(String(format: "inflated %d records (%.1f MB -> %.1f MB, %d failed) in %.3f s: %.0f records/s",
                 records, Double(compressed) / 1e6, Double(inflated) / 1e6, failed, seconds, Double(records) / seconds)
        + " with \(library.rawValue)\(fresh ? ", a fresh codec per payload" : "")")
case "prepare":
    let store = try SQLiteStore(path: rest[0])
    try await store.prepare(pipeline(rest[1]))
case "run":
    guard rest.count >= 3, let parallel = Int(rest[2]), parallel > 0 else { fail("run DB LAYOUT PARALLEL") }
    let store = try SQLiteStore(path: rest[0])
    // `noprojection`: RoomScan's processors in a pipeline that keeps no projection, as before issue 24.
    let chosen = rest.count > 3 && rest[3] == "noprojection" ? withoutProjection(pipeline(rest[1])) : pipeline(rest[1])
    let runner = Runner(store: store, pipelines: [chosen], configuration: .init(parallelism: parallel))
    let summary = try await runner.run()
    let counts = summary.counts
    let seconds = summary.elapsed / .seconds(1)
    print("run \(summary.runID) \(summary.status.rawValue) (\(rest[1])): \(counts.changed) derived, \(counts.unchanged) unchanged, "
        + "\(counts.failed) failed in \(String(format: "%.3f", seconds)) s")
    if counts.failed > 0 { exit(3) }
case "invalidate":
    guard rest.count >= 3 else { fail("invalidate DB LAYOUT NAME") }
    let store = try SQLiteStore(path: rest[0])
    let chosen = pipeline(rest[1])
    try await store.prepare(chosen)
    let marked = try await store.invalidate(chosen, processors: [rest[2]], keys: nil)
    print("marked \(marked) records stale for \(rest[2])")
default:
    fail("unknown command \(command)")
}
