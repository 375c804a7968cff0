extension DatabaseOptions {
    /// A command line a message suggests, `rederive` and `words`, naming the database when this
    /// command was given `--db` (and the pipeline when given `--pipeline`), so that copying it acts on
    /// the same database rather than on the default one.
    func suggestion(_ words: [String]) -> String {
        var line = [environment.invocation] + words
        if path != nil { line += ["--db", Invocation.quoted(databaseArgument)] }
        if let pipeline { line += ["--pipeline", Invocation.quoted(pipeline)] }
        return line.joined(separator: " ")
    }
}
