extension Format {
    /// The most characters a key takes in a table: a longer one keeps its start and end around an
    /// ellipsis, so that one long key does not widen every row (JSON and CSV keep it whole).
    static let tableKeyLength = 48

    /// `text` cut to `limit` characters at most, its middle replaced by `…`.
    static func shortened(_ text: String, to limit: Int = tableKeyLength) -> String {
        guard text.count > limit, limit >= 3 else { return text }
        let kept = limit - 1
        return String(text.prefix(kept - kept / 2)) + "…" + String(text.suffix(kept / 2))
    }
}
