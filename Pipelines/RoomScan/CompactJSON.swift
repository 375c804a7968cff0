/// The compact JSON text of the TEXT columns: no whitespace, keys sorted by code point, non-ASCII
/// characters written as themselves, the same text as Python's
/// `json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)`.
enum CompactJSON {
    /// An object from names to counts, keys sorted by code point.
    static func object(_ counts: [String: Int]) -> String {
        let members = counts
            .sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }
            .map { "\(quoted($0.key)):\($0.value)" }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// An array of strings, in order.
    static func array(_ strings: [String]) -> String {
        "[" + strings.map(quoted).joined(separator: ",") + "]"
    }

    /// A string literal, escaping only what JSON requires.
    static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
