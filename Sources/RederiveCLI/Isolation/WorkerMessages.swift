import Rederive

/// The messages `run --isolate` exchanges with its worker processes over their standard input and
/// output: each a frame of a 4-byte little-endian length and a body. The parent sends a
/// `PendingRecord`; the worker answers with its `RecordResult`.
enum WorkerMessages {
    /// Frames larger than this are refused as corrupt: a payload is capped well below it.
    static let maximumFrame = 1 << 31 - 1

    static func encode(_ record: PendingRecord) -> [UInt8] {
        var writer = ByteWriter()
        writer.integer(record.recordID)
        writer.integer(record.generation)
        writer.count(record.staleProcessors.count)
        for index in record.staleProcessors { writer.count(index) }
        switch record.input {
        case .payload(nil, let fallback):
            writer.byte(0)
            writer.fallback(fallback)
        case .payload(let payload?, let fallback):
            writer.byte(1)
            writer.bytes(payload)
            writer.fallback(fallback)
        case .notRead:
            writer.byte(2)
        case .unreadable(let damage, let fallback):
            writer.byte(3)
            writer.text(damage)
            writer.fallback(fallback)
        case .projection(let projection):
            writer.byte(4)
            writer.bytes(projection.bytes)
            writer.integer(projection.payloadDigest)
        }
        let state = record.dependencies
        writer.count(state.watching.count)
        for index in state.watching { writer.count(index) }
        writer.count(state.storedValues.count)
        for (index, values) in state.storedValues.sorted(by: { $0.key < $1.key }) {
            writer.count(index)
            writer.count(values.count)
            for value in values { writer.value(value) }
        }
        writer.count(state.consumedDigests.count)
        for (index, digest) in state.consumedDigests.sorted(by: { $0.key < $1.key }) {
            writer.count(index)
            writer.integer(digest)
        }
        writer.count(state.failures.count)
        for (index, kind) in state.failures.sorted(by: { $0.key < $1.key }) {
            writer.count(index)
            writer.text(kind.rawValue)
        }
        let rules = state.storageRules
        for rule in [rules.nanIsNull, rules.realColumnsHoldIntegersAsReals, rules.realZeroHasNoSign] {
            writer.byte(rule ? 1 : 0)
        }
        return writer.data
    }

    static func decodeRecord(_ body: [UInt8]) throws -> PendingRecord {
        var reader = ByteReader(body)
        let recordID = try reader.integer()
        let generation = try reader.integer()
        let stale = try (0..<reader.count()).map { _ in try reader.count() }
        let input: PendingInput = switch try reader.byte() {
        case 0: .payload(nil, fallback: try reader.fallback())
        case 1: .payload(try reader.bytes(), fallback: try reader.fallback())
        case 2: .notRead
        case 3: .unreadable(try reader.text(), fallback: try reader.fallback())
        case 4: .projection(StoredProjection(bytes: try reader.bytes(), payloadDigest: try reader.integer()))
        default: throw MalformedMessage()
        }
        let watching = try (0..<reader.count()).map { _ in try reader.count() }
        var storedValues: [Int: [DerivedValue]] = [:]
        for _ in 0..<(try reader.count()) {
            let index = try reader.count()
            storedValues[index] = try (0..<reader.count()).map { _ in try reader.value() }
        }
        var digests: [Int: Int64] = [:]
        for _ in 0..<(try reader.count()) {
            let index = try reader.count()
            digests[index] = try reader.integer()
        }
        var failures: [Int: FailureKind] = [:]
        for _ in 0..<(try reader.count()) {
            let index = try reader.count()
            failures[index] = FailureKind(rawValue: try reader.text()) ?? .processor
        }
        let rules = StorageRules(
            nanIsNull: try reader.byte() == 1, realColumnsHoldIntegersAsReals: try reader.byte() == 1,
            realZeroHasNoSign: try reader.byte() == 1
        )
        return PendingRecord(
            recordID: recordID, generation: generation, staleProcessors: stale, input: input,
            dependencies: DependencyState(
                watching: watching, storedValues: storedValues, consumedDigests: digests, failures: failures, storageRules: rules
            )
        )
    }

    static func encode(_ result: RecordResult) -> [UInt8] {
        var writer = ByteWriter()
        writer.integer(result.recordID)
        writer.integer(result.generation)
        writer.integer(result.payloadDigest)
        writer.count(result.outcomes.count)
        for (processor, outcome) in result.outcomes {
            writer.count(processor)
            switch outcome {
            case .derived(let values):
                writer.byte(0)
                writer.count(values.count)
                for value in values { writer.value(value) }
            case .failed(let kind, let message):
                writer.byte(1)
                writer.text(kind.rawValue)
                writer.text(message)
            }
        }
        writer.count(result.inputDigests.count)
        for (index, digest) in result.inputDigests.sorted(by: { $0.key < $1.key }) {
            writer.count(index)
            writer.integer(digest)
        }
        return writer.data
    }

    static func decodeResult(_ body: [UInt8]) throws -> RecordResult {
        var reader = ByteReader(body)
        let recordID = try reader.integer()
        let generation = try reader.integer()
        let digest = try reader.integer()
        let outcomes = try (0..<reader.count()).map { _ -> (processor: Int, outcome: ProcessorOutcome) in
            let processor = try reader.count()
            if try reader.byte() == 0 {
                return (processor, .derived(try (0..<reader.count()).map { _ in try reader.value() }))
            }
            let kind = FailureKind(rawValue: try reader.text()) ?? .processor
            return (processor, .failed(kind, try reader.text()))
        }
        var inputDigests: [Int: Int64] = [:]
        for _ in 0..<(try reader.count()) {
            let index = try reader.count()
            inputDigests[index] = try reader.integer()
        }
        return RecordResult(recordID: recordID, generation: generation, payloadDigest: digest, outcomes: outcomes, inputDigests: inputDigests)
    }
}

/// A message that does not decode: the other side is not a worker speaking this protocol.
struct MalformedMessage: Error, CustomStringConvertible {
    var description: String { "malformed worker message" }
}

struct ByteWriter {
    var data: [UInt8] = []

    mutating func byte(_ value: UInt8) { data.append(value) }

    mutating func integer(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func count(_ value: Int) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func bytes(_ value: [UInt8]) {
        count(value.count)
        data.append(contentsOf: value)
    }

    mutating func text(_ value: String) { bytes(Array(value.utf8)) }

    /// Why a payload was read in place of a projection, empty for none.
    mutating func fallback(_ value: ProjectionFallback?) { text(value?.rawValue ?? "") }

    mutating func value(_ value: DerivedValue) {
        switch value {
        case .null: byte(0)
        case .integer(let number): byte(1); integer(number)
        case .real(let number): byte(2); integer(Int64(bitPattern: number.bitPattern))
        case .text(let text): byte(3); self.text(text)
        case .blob(let blob): byte(4); bytes(blob)
        }
    }
}

struct ByteReader {
    private let data: [UInt8]
    private var position = 0

    init(_ data: [UInt8]) { self.data = data }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, data.count - position >= count else { throw MalformedMessage() }
        defer { position += count }
        return data[position..<position + count]
    }

    mutating func byte() throws -> UInt8 { try take(1).first ?? 0 }

    mutating func integer() throws -> Int64 {
        try take(8).reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    mutating func count() throws -> Int {
        Int(try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    mutating func bytes() throws -> [UInt8] { Array(try take(try count())) }

    mutating func text() throws -> String { String(decoding: try bytes(), as: UTF8.self) }

    mutating func fallback() throws -> ProjectionFallback? {
        let name = try text()
        guard !name.isEmpty else { return nil }
        guard let fallback = ProjectionFallback(rawValue: name) else { throw MalformedMessage() }
        return fallback
    }

    mutating func value() throws -> DerivedValue {
        switch try byte() {
        case 0: .null
        case 1: .integer(try integer())
        case 2: .real(Double(bitPattern: UInt64(bitPattern: try integer())))
        case 3: .text(try text())
        case 4: .blob(try bytes())
        default: throw MalformedMessage()
        }
    }
}
