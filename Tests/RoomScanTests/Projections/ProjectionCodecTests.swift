import Rederive
import RederiveCodec
import RoomScan
import RoomScanGenerator
import Testing

/// The room's projection gives back what every processor reads, bit for bit, and values derived from
/// it are those derived from the payload.
@Suite("RoomScan's projection")
struct ProjectionCodecTests {
    static let generator = RoomScanGenerator(seed: 24)

    /// Every real export and a generated corpus, as JSON.
    static func corpus() throws -> [(name: String, json: [UInt8])] {
        try Fixtures.exportNames.map { ($0, try Fixtures.export($0)) } + (0..<60).map { ("generated \($0)", generator.scan(at: $0)) }
    }

    @Test("every export and generated scan comes back bit for bit")
    func roundTripsEveryScan() throws {
        for (name, json) in try Self.corpus() {
            let room = try CapturedRoom(json: json)
            #expect(ProjectedRoom(try CapturedRoom(projection: room.projectionBytes)) == ProjectedRoom(room), "\(name)")
        }
    }

    @Test("NaN payloads, infinities, −0, subnormals, empty lists and unicode labels come back bit for bit")
    func roundTripsValuesEasyToLose() throws {
        let room = CapturedRoom(
            walls: [CapturedRoom.Wall(
                dimensions: [.nan, -0.0, .infinity],
                transform: [-.infinity, Double(bitPattern: 0x7FF8_0000_0000_0123), .leastNonzeroMagnitude, -.greatestFiniteMagnitude]
                    + Array(repeating: 1.0 / 3, count: 12)
            )],
            doorCount: 0, windowCount: Int.max, openingCount: -1,
            floors: [CapturedRoom.Floor(dimensions: [1, 2, 0]), CapturedRoom.Floor(dimensions: [], polygonCorners: [[]])],
            objects: [CapturedRoom.Object(category: "cafe\u{301}"), CapturedRoom.Object(category: "café"), CapturedRoom.Object(category: "🛋️ \"\n")],
            sections: [CapturedRoom.Section(label: ""), CapturedRoom.Section(label: "Küche")]
        )
        #expect(ProjectedRoom(try CapturedRoom(projection: room.projectionBytes)) == ProjectedRoom(room))
        #expect(ProjectedRoom(try CapturedRoom(projection: CapturedRoom().projectionBytes)) == ProjectedRoom(CapturedRoom()))
    }

    @Test("values derived from the projection equal those derived from the payload, bit for bit")
    func derivesTheSameValuesFromEither() throws {
        let pipeline = RoomScan.pipeline
        let all = Array(pipeline.processors.indices)
        for (name, json) in try Self.corpus() {
            let stored = PayloadCodec.encode(json)
            let fromPayload = RecordResult(
                evaluating: PendingRecord(recordID: 1, generation: 1, staleProcessors: all, input: .payload(stored)), pipeline: pipeline, codec: PayloadCodec()
            )
            let projection = try #require(fromPayload.projection, "\(name)")
            let fromProjection = RecordResult(
                evaluating: PendingRecord(
                    recordID: 1, generation: 1, staleProcessors: all,
                    input: .projection(StoredProjection(bytes: projection, payloadDigest: PayloadCodec.digest(stored)))
                ),
                pipeline: pipeline, codec: PayloadCodec()
            )
            #expect(fromProjection.derivedFromProjection && !fromPayload.derivedFromProjection)
            #expect(fromProjection.projection == nil, "a projection read is not written again")
            #expect(fromProjection.payloadDigest == fromPayload.payloadDigest)
            #expect(Outcomes(fromProjection) == Outcomes(fromPayload), "\(name)")
            #expect(Outcomes(fromPayload).failures == 0, "\(name)")
        }
    }

    @Test("truncated or flipped bytes throw or decode, and never trap")
    func damagedBytesNeverTrap() throws {
        var random = SystemRandomNumberGenerator()
        for name in Fixtures.exportNames {
            let bytes = try CapturedRoom(json: try Fixtures.export(name)).projectionBytes
            for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 64)) {
                #expect(throws: ProjectionError.self) { try CapturedRoom(projection: Array(bytes.prefix(length))) }
            }
            #expect(throws: ProjectionError.self) { try CapturedRoom(projection: bytes + [0]) }
            for _ in 0..<200 {
                var damaged = bytes
                damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                _ = try? CapturedRoom(projection: damaged)
            }
        }
    }
}

/// A room compared by the bit patterns of its numbers and the UTF-8 bytes of its strings.
struct ProjectedRoom: Equatable {
    let numbers: [[UInt64]]
    let counts: [Int]
    let strings: [[UInt8]]

    init(_ room: CapturedRoom) {
        var numbers: [[UInt64]] = []
        for wall in room.walls {
            numbers += [wall.dimensions.map(\.bitPattern), wall.transform.map(\.bitPattern)]
        }
        numbers.append([])
        for floor in room.floors {
            numbers.append(floor.dimensions.map(\.bitPattern))
            numbers += [[UInt64(floor.polygonCorners.count)]] + floor.polygonCorners.map { $0.map(\.bitPattern) }
        }
        self.numbers = numbers
        counts = [room.walls.count, room.doorCount, room.windowCount, room.openingCount, room.floors.count, room.objects.count, room.sections.count]
        strings = room.objects.map { Array($0.category.utf8) } + [[0xFF]] + room.sections.map { Array($0.label.utf8) }
    }
}

/// A result's outcomes compared bit for bit.
struct Outcomes: Equatable {
    let values: [String]
    let failures: Int

    init(_ result: RecordResult) {
        var values: [String] = []
        var failures = 0
        for (processor, outcome) in result.outcomes {
            switch outcome {
            case .derived(let row):
                values.append("\(processor): " + row.map { value in
                    if case .real(let number) = value { "real \(number.bitPattern)" } else { "\(value)" }
                }.joined(separator: "|"))
            case .failed(let kind, let message):
                failures += 1
                values.append("\(processor): failed \(kind) \(message)")
            }
        }
        self.values = values
        self.failures = failures
    }
}
