// rederive-floor: the benchmark's helper executable (not part of the product).
//
//   rederive-floor inflate DB THREADS            the floor: read every payload of room_scans and only
//                                                inflate it, on THREADS threads, each reading its own
//                                                id range on its own connection
//   rederive-floor inflate DB THREADS libdeflate   the same with libdeflate's whole-buffer zlib inflate
//                                                (loaded with dlopen: libdeflate.so.0, Debian libdeflate0)
//   rederive-floor prepare DB LAYOUT             create the RoomScan schema in LAYOUT (inline|companion)
//   rederive-floor run DB LAYOUT PARALLEL        rederive's Runner with RoomScan.pipeline(layout: LAYOUT)
//   rederive-floor invalidate DB LAYOUT NAME     mark every record stale for processor NAME
import Dispatch
import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RoomScan
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("rederive-floor: \(message)\n".utf8))
    exit(2)
}

func pipeline(_ layout: String) -> Pipeline {
    switch layout {
    case "inline": RoomScan.pipeline(layout: .inline)
    case "companion": RoomScan.pipeline
    default: fail("layout must be inline or companion, not \(layout)")
    }
}

/// libdeflate's whole-buffer zlib decompressor, loaded at run time so the package needs no new dependency.
struct LibDeflate: @unchecked Sendable {
    typealias Alloc = @convention(c) () -> OpaquePointer?
    typealias Decompress = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?, Int,
                                           UnsafeMutablePointer<Int>?) -> Int32
    let alloc: Alloc
    let decompress: Decompress

    init() {
        guard let handle = dlopen("libdeflate.so.0", RTLD_NOW),
              let alloc = dlsym(handle, "libdeflate_alloc_decompressor"),
              let decompress = dlsym(handle, "libdeflate_zlib_decompress")
        else { fail("cannot load libdeflate.so.0 (apt install libdeflate0)") }
        self.alloc = unsafeBitCast(alloc, to: Alloc.self)
        self.decompress = unsafeBitCast(decompress, to: Decompress.self)
    }

    /// Inflates a zlib payload into a buffer that starts at 4x the input and doubles on LIBDEFLATE_INSUFFICIENT_SPACE.
    func inflate(_ input: [UInt8], with decompressor: OpaquePointer?) -> Int? {
        var capacity = max(1024, input.count * 4)
        while capacity <= 64 << 20 {
            var produced = 0
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                let status = input.withUnsafeBytes { source in
                    decompress(decompressor, source.baseAddress, source.count, buffer.baseAddress, capacity, &produced)
                }
                count = status == 0 ? produced : 0
                if status == 3 { produced = -1 } else if status != 0 { produced = -2 }
            }
            if produced >= 0 { return output.count }
            if produced == -2 { return nil }
            capacity *= 2
        }
        return nil
    }
}

/// Reads and inflates every payload; returns (records, compressed bytes, inflated bytes, failures).
func inflateAll(path: String, threads: Int, libdeflate: LibDeflate?) throws -> (Int, Int, Int, Int) {
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
        let codec = PayloadCodec()
        let decompressor = libdeflate?.alloc()
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
                    if let libdeflate {
                        if let count = libdeflate.inflate(bytes, with: decompressor) { inflated += count } else { failed += 1 }
                    } else {
                        do {
                            inflated += try codec.decode(bytes).count
                        } catch {
                            failed += 1
                        }
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

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first, arguments.count >= 3 else {
    fail("usage: rederive-floor inflate DB THREADS | prepare DB LAYOUT | run DB LAYOUT PARALLEL | invalidate DB LAYOUT NAME")
}
let rest = Array(arguments.dropFirst())
let clock = ContinuousClock()
let start = clock.now
switch command {
case "inflate":
    guard let threads = Int(rest[1]), threads > 0 else { fail("THREADS must be a positive integer") }
    let libdeflate = rest.count > 2 && rest[2] == "libdeflate" ? LibDeflate() : nil
    let (records, compressed, inflated, failed) = try inflateAll(path: rest[0], threads: threads, libdeflate: libdeflate)
    let seconds = (clock.now - start) / .seconds(1)
    print(String(format: "inflated %d records (%.1f MB -> %.1f MB, %d failed) in %.3f s: %.0f records/s",
                 records, Double(compressed) / 1e6, Double(inflated) / 1e6, failed, seconds, Double(records) / seconds))
case "prepare":
    let store = try SQLiteStore(path: rest[0])
    try await store.prepare(pipeline(rest[1]))
case "run":
    guard rest.count >= 3, let parallel = Int(rest[2]), parallel > 0 else { fail("run DB LAYOUT PARALLEL") }
    let store = try SQLiteStore(path: rest[0])
    let runner = Runner(store: store, pipelines: [pipeline(rest[1])], configuration: .init(parallelism: parallel))
    let summary = try await runner.run()
    let counts = summary.counts
    let seconds = summary.elapsed / .seconds(1)
    print("run \(summary.runID) \(summary.status.rawValue) (\(rest[1])): \(counts.derived) derived, \(counts.unchanged) unchanged, "
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
