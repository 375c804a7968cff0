import Foundation

extension CapturedRoom {
    /// Decodes a room from the UTF-8 JSON of a RoomPlan export.
    ///
    /// - Throws: A `DecodingError` when the JSON is invalid or does not hold a room.
    public init(json: [UInt8]) throws {
        self = try JSONDecoder().decode(CapturedRoom.self, from: Data(json))
    }
}
