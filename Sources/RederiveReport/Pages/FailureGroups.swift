import Rederive

/// Failures grouped by kind and message, most frequent first, with the processors they hit and a few
/// example records: thousands of records failing for one reason read as one line.
struct FailureGroups {
    /// One failure of one record and processor.
    struct Entry {
        let kind: FailureKind
        let message: String
        let processor: String
        let key: String?
        let recordID: Int64
    }

    struct Group {
        let kind: FailureKind
        let message: String
        var count = 0
        var processors: [String] = []
        var examples: [(key: String?, recordID: Int64)] = []
        var records = Set<Int64>()
    }

    /// How many example records a group lists.
    static let exampleCount = 3

    let total: Int
    let groups: [Group]
    /// Failures per kind, most first.
    let kinds: [(kind: FailureKind, count: Int)]

    init(_ entries: [Entry]) {
        var groups: [String: Group] = [:]
        var order: [String] = []
        var kinds: [FailureKind: Int] = [:]
        for entry in entries {
            let id = entry.kind.rawValue + "\u{0}" + entry.message
            if groups[id] == nil {
                groups[id] = Group(kind: entry.kind, message: entry.message)
                order.append(id)
            }
            kinds[entry.kind, default: 0] += 1
            groups[id]?.count += 1
            if groups[id]?.processors.contains(entry.processor) == false {
                groups[id]?.processors.append(entry.processor)
            }
            if groups[id]?.records.insert(entry.recordID).inserted == true, (groups[id]?.examples.count ?? 0) < Self.exampleCount {
                groups[id]?.examples.append((entry.key, entry.recordID))
            }
        }
        total = entries.count
        // Most frequent first; ties keep the order they were first seen in.
        self.groups = order.enumerated().compactMap { index, id in groups[id].map { (index, $0) } }
            .sorted { ($0.1.count, -$0.0) > ($1.1.count, -$1.0) }.map(\.1)
        self.kinds = kinds.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }.map { ($0.key, $0.value) }
    }

    /// A table of the groups, at most `limit` of them, or a note that there are none.
    func html(redactKeys: Bool, limit: Int = 25) -> String {
        guard total > 0 else { return ReportPage.note("None.") }
        var html = ReportPage.note("\(ReportNumber.count(total)) failures (record and processor) in \(ReportNumber.count(groups.count)) groups of kind and message"
            + (groups.count > limit ? "; the \(limit) largest:" : ":"))
        html += ReportPage.table(
            ["kind", "message", "failures", "processors", "records, for example"],
            groups.prefix(limit).map { group in
                [group.kind.rawValue, ReportPage.value(group.message, limit: 300), ReportNumber.count(group.count),
                 group.processors.joined(separator: ", "),
                 group.examples.map { ReportPage.record(key: $0.key, id: $0.recordID, redactKeys: redactKeys) }.joined(separator: ", ")]
            },
            numeric: [2], kind: "failures"
        )
        return html
    }
}
