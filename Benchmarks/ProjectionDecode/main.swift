// The projection encodings measured side by side (Benchmarks/projection_decode.sh): how fast each
// candidate decodes the room that RoomScan's processors read, on the real exports, against what a
// bump costs today (inflate the stored payload, then decode its JSON); and whether each gives back
// the room bit for bit, NaN, infinities, −0, empty arrays and unicode labels included.
//
//   projection-decode ROUNDS FILE...
import CZlib
import Foundation

// MARK: - Candidates

/// The property-list and JSON candidates encode through `Codable`, as an app's own input type would.
extension CapturedRoom: Codable {
    enum Keys: String, CodingKey { case walls, doors, windows, openings, floors, objects, sections }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(
            walls: try c.decode([Wall].self, forKey: .walls), doorCount: try c.decode(Int.self, forKey: .doors),
            windowCount: try c.decode(Int.self, forKey: .windows), openingCount: try c.decode(Int.self, forKey: .openings),
            floors: try c.decode([Floor].self, forKey: .floors), objects: try c.decode([Object].self, forKey: .objects),
            sections: try c.decode([Section].self, forKey: .sections)
        )
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(walls, forKey: .walls)
        try c.encode(doorCount, forKey: .doors)
        try c.encode(windowCount, forKey: .windows)
        try c.encode(openingCount, forKey: .openings)
        try c.encode(floors, forKey: .floors)
        try c.encode(objects, forKey: .objects)
        try c.encode(sections, forKey: .sections)
    }
}
extension CapturedRoom.Wall: Codable {
    enum Keys: String, CodingKey { case d, t }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(dimensions: try c.decode([Double].self, forKey: .d), transform: try c.decode([Double].self, forKey: .t))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(dimensions, forKey: .d)
        try c.encode(transform, forKey: .t)
    }
}
extension CapturedRoom.Floor: Codable {
    enum Keys: String, CodingKey { case d, c }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(dimensions: try c.decode([Double].self, forKey: .d), polygonCorners: try c.decode([[Double]].self, forKey: .c))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(dimensions, forKey: .d)
        try c.encode(polygonCorners, forKey: .c)
    }
}
extension CapturedRoom.Object: Codable {
    public init(from decoder: any Decoder) throws { self.init(category: try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(category) }
}
extension CapturedRoom.Section: Codable {
    public init(from decoder: any Decoder) throws { self.init(label: try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(label) }
}

/// The room as RoomPlan-shaped JSON without `coreModel`, read by RoomScan's own decoder.
func roomPlanJSON(_ room: CapturedRoom) -> [UInt8] {
    func numbers(_ values: [Double]) -> String { "[" + values.map { "\($0)" }.joined(separator: ",") + "]" }
    func objects(_ count: Int) -> String { "[" + Array(repeating: "{}", count: count).joined(separator: ",") + "]" }
    var text = "{\"walls\":["
    text += room.walls.map { "{\"dimensions\":\(numbers($0.dimensions)),\"transform\":\(numbers($0.transform))}" }.joined(separator: ",")
    text += "],\"doors\":\(objects(room.doorCount)),\"windows\":\(objects(room.windowCount)),\"openings\":\(objects(room.openingCount))"
    text += ",\"floors\":[" + room.floors.map {
        "{\"dimensions\":\(numbers($0.dimensions)),\"polygonCorners\":[\($0.polygonCorners.map(numbers).joined(separator: ","))]}"
    }.joined(separator: ",") + "]"
    text += ",\"objects\":[" + room.objects.map { "{\"category\":{\(CompactJSON.quoted($0.category)):{}}}" }.joined(separator: ",") + "]"
    text += ",\"sections\":[" + room.sections.map { "{\"label\":\(CompactJSON.quoted($0.label))}" }.joined(separator: ",") + "]}"
    return Array(text.utf8)
}

struct Candidate {
    let name: String
    let encode: (CapturedRoom) throws -> [UInt8]
    let decode: ([UInt8]) throws -> CapturedRoom
}

let plistEncoder: PropertyListEncoder = { let e = PropertyListEncoder(); e.outputFormat = .binary; return e }()
let jsonEncoder: JSONEncoder = {
    let e = JSONEncoder()
    e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return e
}()
let jsonDecoder: JSONDecoder = {
    let d = JSONDecoder()
    d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return d
}()

let candidates = [
    Candidate(name: "fixed binary layout (hand-rolled)", encode: { $0.projectionBytes }, decode: { try CapturedRoom(projection: $0) }),
    Candidate(name: "binary property list (Foundation, Codable)", encode: { Array(try plistEncoder.encode($0)) },
              decode: { try PropertyListDecoder().decode(CapturedRoom.self, from: Data($0)) }),
    Candidate(name: "compact JSON (JSONEncoder/JSONDecoder, Codable)", encode: { Array(try jsonEncoder.encode($0)) },
              decode: { try jsonDecoder.decode(CapturedRoom.self, from: Data($0)) }),
    Candidate(name: "compact JSON (RoomPlan shape, RoomScan's decoder)", encode: roomPlanJSON, decode: { try CapturedRoom(json: $0) }),
]

// MARK: - Bit-for-bit comparison

func same(_ a: [Double], _ b: [Double]) -> Bool { a.map(\.bitPattern) == b.map(\.bitPattern) }
func same(_ a: CapturedRoom, _ b: CapturedRoom) -> Bool {
    a.walls.count == b.walls.count && zip(a.walls, b.walls).allSatisfy { same($0.dimensions, $1.dimensions) && same($0.transform, $1.transform) }
        && a.doorCount == b.doorCount && a.windowCount == b.windowCount && a.openingCount == b.openingCount
        && a.floors.count == b.floors.count
        && zip(a.floors, b.floors).allSatisfy {
            same($0.dimensions, $1.dimensions) && $0.polygonCorners.count == $1.polygonCorners.count
                && zip($0.polygonCorners, $1.polygonCorners).allSatisfy { same($0, $1) }
        }
        && a.objects.map { Array($0.category.utf8) } == b.objects.map { Array($0.category.utf8) }
        && a.sections.map { Array($0.label.utf8) } == b.sections.map { Array($0.label.utf8) }
}

/// A room with every value that is easy to lose: NaN with a payload, infinities, −0, subnormals,
/// empty lists, and labels in decomposed and composed unicode.
let hostile = CapturedRoom(
    walls: [CapturedRoom.Wall(dimensions: [.nan, -0.0, .infinity], transform: [-.infinity, Double(bitPattern: 0x7FF8_0000_0000_0123),
        .leastNonzeroMagnitude, -.greatestFiniteMagnitude, 0.1, Double(bitPattern: 1)] + Array(repeating: 1.0 / 3, count: 10))],
    doorCount: 0, windowCount: 7, openingCount: 0,
    floors: [CapturedRoom.Floor(dimensions: [1, 2, 0], polygonCorners: []), CapturedRoom.Floor(dimensions: [], polygonCorners: [[]])],
    objects: [CapturedRoom.Object(category: "cafe\u{301}"), CapturedRoom.Object(category: "café"), CapturedRoom.Object(category: "🛋️ \"sofa\"\n")],
    sections: [CapturedRoom.Section(label: "")]
)

// MARK: - Measuring

func inflate(_ compressed: [UInt8], size: Int) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: size)
    var length = uLongf(size)
    let status = output.withUnsafeMutableBufferPointer { out in
        compressed.withUnsafeBufferPointer { input in uncompress(out.baseAddress, &length, input.baseAddress, uLong(input.count)) }
    }
    precondition(status == Z_OK, "inflate failed")
    return output
}

func deflate(_ bytes: [UInt8]) -> [UInt8] {
    var length = compressBound(uLong(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(length))
    let status = output.withUnsafeMutableBufferPointer { out in
        bytes.withUnsafeBufferPointer { input in compress2(out.baseAddress, &length, input.baseAddress, uLong(input.count), 6) }
    }
    precondition(status == Z_OK, "deflate failed")
    return Array(output.prefix(Int(length)))
}

/// Microseconds per record of `body` over every input, the best of `rounds`.
func measure<T>(_ rounds: Int, _ inputs: [T], _ body: (T) throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let clock = ContinuousClock()
        let start = clock.now
        var repeats = 0
        repeat {
            for input in inputs { try body(input) }
            repeats += 1
        } while clock.now - start < .milliseconds(200)
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = min(best, seconds / Double(repeats * inputs.count) * 1e6)
    }
    return best
}

let arguments = CommandLine.arguments.dropFirst()
guard let rounds = arguments.first.flatMap(Int.init), arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: projection-decode ROUNDS FILE...\n".utf8))
    exit(2)
}
let exports = try arguments.dropFirst().map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0))) }
let rooms = try exports.map { try CapturedRoom(json: $0) }
let stored = exports.map { (deflate($0), $0.count) }

print("\(exports.count) real exports, \(exports.reduce(0) { $0 + $1.count } / exports.count) bytes of JSON on average, "
    + "\(stored.reduce(0) { $0 + $1.0.count } / exports.count) stored (zlib level 6)")
print("")
print("| path | bytes per record (mean) | decode µs per record (mean) | bit for bit on the exports | on NaN, ±inf, −0, empty, unicode |")
print("|---|---:|---:|---|---|")
let inflateTime = measure(rounds, stored) { _ = inflate($0.0, size: $0.1) }
let parseTime = measure(rounds, exports) { _ = try! CapturedRoom(json: $0) }
let meanStored = stored.reduce(0) { $0 + $1.0.count } / stored.count
print("| payload today: inflate (zlib) | \(meanStored) | \(String(format: "%.1f", inflateTime)) | | |")
print("| payload today: decode the JSON (RoomScan's decoder) | \(exports.reduce(0) { $0 + $1.count } / exports.count) | \(String(format: "%.1f", parseTime)) | | |")
print("| **payload today: inflate + decode** | \(meanStored) | **\(String(format: "%.1f", inflateTime + parseTime))** | | |")
for candidate in candidates {
    let encoded: [[UInt8]] = try rooms.map { try candidate.encode($0) }
    let exact = try zip(rooms, encoded).allSatisfy { room, bytes in same(room, try candidate.decode(bytes)) }
    let hostileResult: String
    do {
        hostileResult = same(hostile, try candidate.decode(try candidate.encode(hostile))) ? "yes" : "no: values differ"
    } catch {
        hostileResult = "no: \(String(describing: error).prefix(60))"
    }
    let time = try measure(rounds, encoded) { (bytes: [UInt8]) in _ = try candidate.decode(bytes) }
    let mean = encoded.reduce(0) { $0 + $1.count } / encoded.count
    print("| \(candidate.name) | \(mean) | \(String(format: "%.2f", time)) | \(exact ? "yes" : "no") | \(hostileResult) |")
}
let encodeTime = measure(rounds, rooms) { _ = $0.projectionBytes }
print("")
print("Encoding the fixed binary layout (paid on first derivation): \(String(format: "%.2f", encodeTime)) µs per record.")
