#if PostgreSQL
import Foundation
import Rederive

/// A derived value as `rederive_replaced` keeps it, in JSON that gives back exactly the value:
/// `null`, `{"integer": "7"}`, `{"real": "-0.0"}` (Swift's round-tripping text, `nan` and `inf`
/// included), `{"text": "…"}`, `{"blob": "base64…"}`.
enum KeptValue {
    static func json(_ value: DerivedValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let number): "{\"integer\": \"\(number)\"}"
        case .real(let number): "{\"real\": \"\(number)\"}"
        case .text(let text): "{\"text\": \(PostgresStore.jsonString(text))}"
        case .blob(let bytes): "{\"blob\": \"\(Data(bytes).base64EncodedString())\"}"
        }
    }

    /// A value as ``json(_:)`` writes it, parsed by JSONSerialization.
    static func value(_ json: Any) throws -> DerivedValue {
        if json is NSNull { return .null }
        guard let object = json as? [String: String], object.count == 1, let (tag, text) = object.first else { throw malformed(json) }
        let value: DerivedValue? = switch tag {
        case "integer": Int64(text).map(DerivedValue.integer)
        case "real": Double(text).map(DerivedValue.real)
        case "text": .text(text)
        case "blob": Data(base64Encoded: text).map { .blob([UInt8]($0)) }
        default: nil
        }
        guard let value else { throw malformed(json) }
        return value
    }

    private static func malformed(_ json: Any) -> RederiveError {
        RederiveError(.schemaMismatch, "a value kept in rederive_replaced is not what rederive wrote: \(String(describing: json).prefix(200))")
    }
}
#endif
