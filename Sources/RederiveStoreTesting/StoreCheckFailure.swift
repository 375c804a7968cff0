/// What a check found that differs from what every store does, thrown by ``StoreCheck/run(_:)``.
public struct StoreCheckFailure: Error, CustomStringConvertible {
    /// The check that failed, ``StoreCheck/description``.
    public let check: String
    /// What differed, one entry an expectation, each beginning with the place in the suite's sources
    /// that expects it (`ClaimChecks.swift:42: …`), in the order the check met them.
    public let differences: [String]
    /// What the store threw and ended the check with, when it threw.
    public let error: (any Error)?

    /// The check's name, what differed and what was thrown, one a line.
    public var description: String {
        var lines = ["store check \"\(check)\" failed:"]
        lines += differences.map { "  \($0)" }
        if let error { lines.append("  threw \(type(of: error)): \(error)") }
        return lines.joined(separator: "\n")
    }
}
