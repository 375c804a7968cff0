import Foundation

/// Re-encodes JSON in the styles RoomPlan exports come in, to check that every style decodes to
/// the same room. Parsing uses `JSONSerialization`; writing is done here so that key order,
/// whitespace, escapes and number notation are under the test's control.
struct JSONText {
    enum Layout { case compact, pretty }
    enum KeyOrder { case sorted, reversed }
    enum Numbers { case shortest, exponent }

    var layout = Layout.compact
    var keyOrder = KeyOrder.sorted
    var numbers = Numbers.shortest
    /// Whether `/` is written `\/`, as Apple's `JSONEncoder` does.
    var escapesSlashes = true
    /// Whether non-ASCII characters are written as `\uXXXX` escapes.
    var escapesNonASCII = false

    static func parse(_ bytes: [UInt8]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    func encode(_ value: Any) -> [UInt8] {
        var out = ""
        write(value, indent: 0, to: &out)
        return Array(out.utf8)
    }

    private func write(_ value: Any, indent: Int, to out: inout String) {
        let newline = layout == .pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let closing = layout == .pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        switch value {
        case let object as [String: Any]:
            let keys = keyOrder == .sorted ? object.keys.sorted() : object.keys.sorted().reversed()
            out += "{"
            for (index, key) in keys.enumerated() {
                out += (index > 0 ? "," : "") + newline
                writeString(key, to: &out)
                out += layout == .pretty ? " : " : ":"
                write(object[key]!, indent: indent + 1, to: &out)
            }
            out += (keys.isEmpty ? "" : closing) + "}"
        case let array as [Any]:
            out += "["
            for (index, element) in array.enumerated() {
                out += (index > 0 ? "," : "") + newline
                write(element, indent: indent + 1, to: &out)
            }
            out += (array.isEmpty ? "" : closing) + "]"
        case let string as String:
            writeString(string, to: &out)
        case let number as NSNumber:
            out += text(of: number)
        case is NSNull:
            out += "null"
        default:
            fatalError("not a JSON value: \(value)")
        }
    }

    private func text(of number: NSNumber) -> String {
        switch String(cString: number.objCType) {
        case "c", "B":
            return number.boolValue ? "true" : "false"
        case "d", "f":
            let double = number.doubleValue
            switch numbers {
            case .shortest: return double.description
            case .exponent: return String(format: "%.16E", double)
            }
        default:
            let integer = number.int64Value
            switch numbers {
            case .shortest: return String(integer)
            case .exponent: return "\(integer)e+0"
            }
        }
    }

    private func writeString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += escapesSlashes ? "\\/" : "/"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || (escapesNonASCII && scalar.value > 0x7E):
                for unit in String(scalar).utf16 {
                    out += String(format: "\\u%04x", unit)
                }
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONText {
    /// The export as iOS 16 wrote it: without `floors`, `sections` or `story` at the top level,
    /// nor `story`, `polygonCorners`, `parentIdentifier` or `attributes` on any element.
    static func ios16Variant(of export: [UInt8]) throws -> [UInt8] {
        guard var room = try parse(export) as? [String: Any] else {
            throw FixtureError("the export is not a JSON object")
        }
        for key in ["floors", "sections", "story"] {
            room[key] = nil
        }
        for (key, value) in room {
            guard let elements = value as? [Any] else { continue }
            room[key] = elements.map { element -> Any in
                guard var element = element as? [String: Any] else { return element }
                for key in ["story", "polygonCorners", "parentIdentifier", "attributes"] {
                    element[key] = nil
                }
                return element
            }
        }
        return JSONText().encode(room)
    }
}
