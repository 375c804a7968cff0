/// Text made safe to place in HTML, in element content and in quoted attribute values alike.
///
/// Every text a report takes from a database (keys, messages, values, names, paths) goes through
/// ``escape(_:)``: a key such as `<script>alert(1)</script>` shows as that text and never runs.
public enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
