/// The room as a compact binary projection: every part the processors read, none of the payload's
/// `coreModel`, in a fixed little-endian layout that decodes without parsing.
///
/// Layout: the walls (a count, then per wall its `dimensions` and `transform`), the door, window and
/// opening counts (8 bytes each), the floors (a count, then per floor its `dimensions` and a count of
/// corners, each a list of numbers), the objects' categories and the sections' labels (a count, then
/// each string's UTF-8 length and bytes). Counts and lengths take 4 bytes; a list of numbers is its
/// count, then each number's IEEE 754 bit pattern in 8 bytes, so NaN payloads, infinities and −0
/// come back bit for bit. Chosen by measurement over JSON and property lists (BENCHMARKS.md).
extension CapturedRoom {
    /// The room's projection bytes; ``init(projection:)`` reads them back to an equal room.
    public var projectionBytes: [UInt8] {
        var writer = ProjectionWriter()
        writer.count(walls.count)
        for wall in walls {
            writer.numbers(wall.dimensions)
            writer.numbers(wall.transform)
        }
        writer.integer(doorCount)
        writer.integer(windowCount)
        writer.integer(openingCount)
        writer.count(floors.count)
        for floor in floors {
            writer.numbers(floor.dimensions)
            writer.count(floor.polygonCorners.count)
            for corner in floor.polygonCorners {
                writer.numbers(corner)
            }
        }
        writer.count(objects.count)
        for object in objects {
            writer.string(object.category)
        }
        writer.count(sections.count)
        for section in sections {
            writer.string(section.label)
        }
        return writer.bytes
    }

    /// Reads a room from ``projectionBytes``.
    ///
    /// - Throws: ``ProjectionError`` when the bytes end early, hold a count larger than what is
    ///   left, or go on past the room: never a trap, whatever the bytes.
    public init(projection: [UInt8]) throws(ProjectionError) {
        self = try projection.withUnsafeBufferPointer { bytes throws(ProjectionError) in
            var reader = ProjectionReader(UnsafeRawBufferPointer(bytes))
            var room = CapturedRoom()
            let wallCount = try reader.count(elementSize: 8)
            room.walls.reserveCapacity(wallCount)
            for _ in 0..<wallCount {
                room.walls.append(Wall(dimensions: try reader.numbers(), transform: try reader.numbers()))
            }
            room.doorCount = try reader.integer()
            room.windowCount = try reader.integer()
            room.openingCount = try reader.integer()
            let floorCount = try reader.count(elementSize: 8)
            room.floors.reserveCapacity(floorCount)
            for _ in 0..<floorCount {
                let dimensions = try reader.numbers()
                let cornerCount = try reader.count(elementSize: 4)
                var corners: [[Double]] = []
                corners.reserveCapacity(cornerCount)
                for _ in 0..<cornerCount {
                    corners.append(try reader.numbers())
                }
                room.floors.append(Floor(dimensions: dimensions, polygonCorners: corners))
            }
            let objectCount = try reader.count(elementSize: 4)
            room.objects.reserveCapacity(objectCount)
            for _ in 0..<objectCount {
                room.objects.append(Object(category: try reader.string()))
            }
            let sectionCount = try reader.count(elementSize: 4)
            room.sections.reserveCapacity(sectionCount)
            for _ in 0..<sectionCount {
                room.sections.append(Section(label: try reader.string()))
            }
            guard reader.isAtEnd else { throw ProjectionError("\(reader.remaining) bytes after the room") }
            return room
        }
    }
}

/// Why bytes are not a room's projection, with the byte where it was found.
public struct ProjectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, such as `the bytes end inside a number`.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Appends the projection's fields, little-endian.
private struct ProjectionWriter {
    var bytes: [UInt8] = []

    mutating func count(_ value: Int) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func numbers(_ values: [Double]) {
        count(values.count)
        for value in values {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        count(utf8.count)
        bytes.append(contentsOf: utf8)
    }
}

/// Reads the projection's fields, checking every length against the bytes left.
private struct ProjectionReader {
    let buffer: UnsafeRawBufferPointer
    var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var remaining: Int { buffer.count - offset }
    var isAtEnd: Bool { offset == buffer.count }

    private mutating func take(_ size: Int, _ what: String) throws(ProjectionError) -> Int {
        guard size <= remaining else { throw ProjectionError("the bytes end inside \(what) at byte \(offset)") }
        defer { offset += size }
        return offset
    }

    /// A count of elements of at least `elementSize` bytes each, which must fit in the bytes left.
    mutating func count(elementSize: Int) throws(ProjectionError) -> Int {
        let start = try take(4, "a count")
        let value = Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
        guard value <= remaining / elementSize else {
            throw ProjectionError("a count of \(value) at byte \(start) exceeds the bytes left")
        }
        return value
    }

    mutating func integer() throws(ProjectionError) -> Int {
        let start = try take(8, "an integer")
        return Int(Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: start, as: Int64.self)))
    }

    mutating func numbers() throws(ProjectionError) -> [Double] {
        let count = try count(elementSize: 8)
        let start = try take(count * 8, "a list of numbers")
        return [Double](unsafeUninitializedCapacity: count) { numbers, initialized in
            for index in 0..<count {
                let bits = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: start + index * 8, as: UInt64.self))
                numbers.initializeElement(at: index, to: Double(bitPattern: bits))
            }
            initialized = count
        }
    }

    mutating func string() throws(ProjectionError) -> String {
        let count = try count(elementSize: 1)
        let start = try take(count, "a string")
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[start..<start + count]), as: UTF8.self)
    }
}
