/// A first argument that names no subcommand: `rederive stauts` is a misspelt `status`, not a root
/// command with stray options, so it is reported as such, with the nearest command's name.
struct UnknownCommand: Error, CustomStringConvertible {
    let name: String
    let suggestion: String?

    var description: String {
        "unknown command '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "") + " (see --help for the commands)"
    }

    /// The error for `arguments` when their first one is neither an option nor one of `commands`
    /// (nor `help`); nil when they start well.
    static func check(_ arguments: [String], commands: [String]) -> UnknownCommand? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let known = commands + ["help"]
        guard !known.contains(first) else { return nil }
        return UnknownCommand(name: first, suggestion: nearest(to: first, in: known))
    }

    /// The command closest to `name` in edits, when it is close enough to be what was meant: at
    /// most a third of the name's letters away, and two at most.
    static func nearest(to name: String, in commands: [String]) -> String? {
        let limit = min(2, max(1, name.count / 3))
        let ranked = commands.map { (command: $0, distance: editDistance(name.lowercased(), $0)) }
            .filter { $0.distance <= limit }
            .sorted { $0.distance < $1.distance }
        return ranked.first?.command
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
    /// neighbours (`stauts` is one from `status`).
    static func editDistance(_ left: String, _ right: String) -> Int {
        let a = Array(left), b = Array(right)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
