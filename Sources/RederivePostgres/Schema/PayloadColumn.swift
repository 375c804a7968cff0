#if PostgreSQL
/// What a pipeline's payload column holds: bytes (`bytea`), or the JSON itself as text (`text`,
/// `json`, `jsonb`), which rederive reads as its UTF-8 bytes and writes inflated.
enum PayloadColumn: Sendable, Equatable {
    case bytes
    /// The JSON as text, in a column of this type: `text`, `json` or `jsonb`.
    case text(String)

    /// The column of `type` as `information_schema` names it; bytes for `bytea` or an unknown type.
    init(type: String?) {
        switch type {
        case "text", "character varying", "character": self = .text("text")
        case "json": self = .text("json")
        case "jsonb": self = .text("jsonb")
        default: self = .bytes
        }
    }

    /// How the column `name` is read as bytes, on alias `t`.
    func reader(_ name: String) -> String {
        switch self {
        case .bytes: "t.\(name)"
        case .text("text"): "convert_to(t.\(name), 'UTF8')"
        case .text: "convert_to(t.\(name)::text, 'UTF8')"
        }
    }

    /// The size in bytes of the column `name` on alias `t`, read without reading the value: what it
    /// holds for `bytea`, `text` and `json`; what it takes on disk for `jsonb`, whose text is about as
    /// long unless the server compressed it.
    func size(_ name: String) -> String {
        switch self {
        case .bytes, .text("text"): "octet_length(t.\(name))"
        case .text("json"): "octet_length(t.\(name)::text)"
        case .text: "pg_column_size(t.\(name))"
        }
    }
}
#endif
