/// A password written in the `--db` URL, which other users of the machine can read in `ps` while
/// rederive runs: rederive warns once, and points to where a password belongs.
///
/// A password in `$REDERIVE_DB` is not warned about: like `$PGPASSWORD`, which libpq reads, it is not
/// in `ps`, and only the user's own processes can read it.
enum CommandLinePassword {
    static let warning =
        "warning: the --db URL holds a password, which other users of this machine can see with ps while rederive runs; set $PGPASSWORD or put it in ~/.pgpass instead"

    /// Whether `url` carries a password that is not empty: `postgres://user:password@host/database`.
    /// Only the URL's authority counts, before any `/`, `?` or `#`, so an `@` in the query is no user.
    static func isIn(_ url: String) -> Bool {
        guard let scheme = url.firstRange(of: "://") else { return false }
        let authority = url[scheme.upperBound...].prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return false }
        return authority.index(after: colon) < at
    }
}
