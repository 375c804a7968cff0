import Foundation

/// The part of a pipeline's decoded payload that its processors read, kept beside the derived values
/// in an encoding that decodes far faster than the payload: a later bump of a processor that reads
/// the payload, whose payload has not changed, derives from it without reading or inflating the payload.
///
/// A pipeline opts in with one argument. A `Codable` input:
///
/// ```swift
/// Pipeline(name: "recipes", table: "recipes", decoding: Recipe.self, projection: .codable(version: 1), processors: [...])
/// ```
///
/// or an encode and decode pair, for the fastest encoding (RoomScan's fixed binary layout):
///
/// ```swift
/// projection: Projection(version: 1, encode: { $0.projectionBytes }, decode: { try CapturedRoom(projection: $0) })
/// ```
///
/// Bump `version` whenever the decoder or the projection's shape changes: projections of another
/// version are not read, and are written again from the payload. `decode(encode(x))` must equal `x`
/// in everything a processor reads, bit for bit.
public struct Projection<Payload: Sendable>: Sendable {
    /// The projection's version, stored with every projection; bump it whenever the decoder or the shape changes.
    public let version: Int
    let encode: @Sendable (Payload) throws -> [UInt8]
    let decode: @Sendable ([UInt8]) throws -> Payload

    /// A projection written by `encode` and read back by `decode`.
    ///
    /// - Parameters:
    ///   - version: Stored with each projection; projections of another version are not read.
    ///   - encode: The bytes to keep for a decoded payload. Throwing leaves the record without a
    ///     projection: it is derived from its payload.
    ///   - decode: The decoded payload from those bytes.
    public init(
        version: Int, encode: @escaping @Sendable (Payload) throws -> [UInt8], decode: @escaping @Sendable ([UInt8]) throws -> Payload
    ) {
        self.version = version
        self.encode = encode
        self.decode = decode
    }
}

extension Projection where Payload: Codable {
    /// A `Codable` input kept as compact JSON (`JSONEncoder` with sorted keys, `JSONDecoder`), which gives back every
    /// string and finite number exactly. A value JSON cannot hold (a NaN or an infinity) leaves that
    /// record without a projection, derived from its payload as before. An encode and decode pair
    /// of a fixed binary layout decodes faster (BENCHMARKS.md).
    public static func codable(version: Int) -> Projection {
        Projection(
            version: version,
            encode: { payload in
                // Sorted keys: the same payload always gives the same bytes, which verify --projections compares.
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return Array(try encoder.encode(payload))
            },
            decode: { bytes in try JSONDecoder().decode(Payload.self, from: Data(bytes)) }
        )
    }
}
