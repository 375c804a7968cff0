/// Checks on a list of pipelines.
extension Collection where Element == Pipeline {
    /// Throws when a name is not one of these pipelines' processors, naming it and the known ones.
    public func requireProcessors(named names: some Sequence<String>) throws(RederiveError) {
        let known = Set(flatMap { $0.processors.map(\.name) })
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw RederiveError(
                .unknownName,
                "no processor named \"\(unknown)\" (registered: \(known.sorted().joined(separator: ", ")))"
            )
        }
    }
}
