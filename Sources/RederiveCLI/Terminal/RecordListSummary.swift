/// A per-record list that can run to thousands of lines, as people read it: in full while it is short,
/// otherwise one line per reason with its count and the first few records, and a line that says how to
/// see every one.
struct RecordListSummary<Item> {
    /// Lists of at most this many entries are written in full.
    static var fullListLimit: Int { 10 }
    /// Records named as examples on each reason's line.
    static var examplesPerReason: Int { 3 }

    let items: [Item]
    /// What the entries are, plural, for the count: `skipped`, `would fail`.
    let reason: (Item) -> String
    /// How an entry is named on its reason's line: `scan-0001 room_type`.
    let example: (Item) -> String
    /// An entry's line in the full list.
    let line: (Item) -> String

    /// The lines to write, indented by two spaces: every entry when `verbose` or when the list is
    /// short, a summary by reason otherwise, ending with `hint` (how to list every entry).
    func lines(verbose: Bool, hint: String) -> [String] {
        if verbose || items.count <= Self.fullListLimit {
            return items.map { "  " + line($0) }
        }
        var order: [String] = []
        var byReason: [String: [Item]] = [:]
        for item in items {
            let reason = reason(item)
            if byReason[reason] == nil { order.append(reason) }
            byReason[reason, default: []].append(item)
        }
        // The most frequent reason first; ties in the order they first appear.
        let ranked = order.enumerated().sorted { left, right in
            let (leftCount, rightCount) = (byReason[left.element]!.count, byReason[right.element]!.count)
            return leftCount != rightCount ? leftCount > rightCount : left.offset < right.offset
        }.map(\.element)
        var lines = ranked.map { reason in
            let entries = byReason[reason]!
            let examples = entries.prefix(Self.examplesPerReason).map(example).joined(separator: ", ")
            let more = entries.count > Self.examplesPerReason ? " and \(Format.count(entries.count - Self.examplesPerReason)) more" : ""
            return "  \(Format.count(entries.count)) \(reason): \(examples)\(more)"
        }
        lines.append("  \(hint)")
        return lines
    }
}
