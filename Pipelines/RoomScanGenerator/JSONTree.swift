import Foundation

/// A JSON document held as a tree, written in the two styles Apple's `JSONEncoder` produces for
/// RoomPlan exports: compact with keys in the order given, or pretty-printed with sorted keys and
/// `" : "`. Both escape `/` as `\/` and write numbers with `Float` digits.
enum JSONTree: Sendable {
    case object([(String, JSONTree)])
    case array([JSONTree])
    case string(String)
    /// A number, written with the shortest digits that read back as the same `Float`.
    case number(Double)
    case bool(Bool)
    case null
    /// Text written as it is, to build deliberately broken documents.
    case raw(String)

    enum Style {
        case compact
        case prettySorted
    }

    func encoded(_ style: Style) -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out, style: style, level: 0)
        return out
    }

    private func write(to out: inout [UInt8], style: Style, level: Int) {
        switch self {
        case .object(let members):
            let ordered = style == .prettySorted ? members.sorted { $0.0 < $1.0 } : members
            writeContainer(ordered, open: "{", close: "}", to: &out, style: style, level: level) { member, out in
                Self.writeString(member.0, to: &out)
                out.append(contentsOf: Array((style == .prettySorted ? " : " : ":").utf8))
                member.1.write(to: &out, style: style, level: level + 1)
            }
        case .array(let elements):
            writeContainer(elements, open: "[", close: "]", to: &out, style: style, level: level) { element, out in
                element.write(to: &out, style: style, level: level + 1)
            }
        case .string(let string):
            Self.writeString(string, to: &out)
        case .number(let value):
            out.append(contentsOf: Array(Self.text(of: value).utf8))
        case .bool(let value):
            out.append(contentsOf: Array((value ? "true" : "false").utf8))
        case .null:
            out.append(contentsOf: Array("null".utf8))
        case .raw(let text):
            out.append(contentsOf: Array(text.utf8))
        }
    }

    /// Writes a container as Apple's encoder does; pretty-printed, an empty one holds a blank line.
    private func writeContainer<Element>(
        _ elements: [Element], open: Unicode.Scalar, close: Unicode.Scalar,
        to out: inout [UInt8], style: Style, level: Int,
        writeElement: (Element, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: open))
        let pretty = style == .prettySorted
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if pretty { Self.newline(indent: level + 1, to: &out) }
            writeElement(element, &out)
        }
        if pretty {
            if elements.isEmpty { out.append(UInt8(ascii: "\n")) }
            Self.newline(indent: level, to: &out)
        }
        out.append(UInt8(ascii: close))
    }

    private static func newline(indent: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// `Float` digits, without a fraction for whole numbers, as `JSONEncoder` writes a `Float`.
    static func text(of value: Double) -> String {
        let float = Float(value)
        if float == float.rounded(), abs(float) < 1e7 {
            return String(Int(float))
        }
        return float.description
    }

    static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0 ..< 0x20: out.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
