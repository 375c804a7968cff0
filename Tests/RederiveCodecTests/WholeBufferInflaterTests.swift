import RederiveCodec
import Testing

@Suite("WholeBufferInflater", .enabled(if: LibDeflate.loaded != nil, "libdeflate.so.0 is not on this machine"))
struct WholeBufferInflaterTests {
    let libdeflate = LibDeflate.loaded!

    static let json: [UInt8] = Array((0..<3_000).map { "{\"index\":\($0),\"name\":\"room \($0)\"}," }.joined().utf8)

    @Test(arguments: [PayloadFormat.zlib, .deflate, .gzip])
    func inflatesACleanStreamWithoutZlib(format: PayloadFormat) throws {
        let stored = PayloadCodec.encode(Self.json, as: format)
        #expect(try WholeBufferInflater.inflate(stored, format: format, maximumSize: 1 << 26, with: libdeflate) == Self.json)
    }

    @Test(arguments: [PayloadFormat.zlib, .deflate, .gzip])
    func leavesDamagedStreamsToZlibToExplain(format: PayloadFormat) throws {
        let stored = PayloadCodec.encode(Self.json, as: format)
        #expect(try WholeBufferInflater.inflate(Array(stored.dropLast(9)), format: format, maximumSize: 1 << 26, with: libdeflate) == nil)
        #expect(try WholeBufferInflater.inflate(stored + [0], format: format, maximumSize: 1 << 26, with: libdeflate) == nil)
    }

    @Test func stopsAtTheLimitWithoutGrowingPastIt() {
        let stored = PayloadCodec.encode(Self.json, as: .zlib)
        let error = #expect(throws: PayloadError.self) {
            _ = try WholeBufferInflater.inflate(stored, format: .zlib, maximumSize: 1_000, with: libdeflate)
        }
        #expect(error?.code == .tooLarge)
    }
}
