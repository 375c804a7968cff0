#if PostgreSQL
import PostgresNIO
import Synchronization

/// The statements a worker runs with every claim and commit, prepared once per connection.
///
/// Sent as plain statements, each would be parsed, analyzed and planned at every call: for a claim of
/// a few dozen records, that costs the server about as much as running its queries. Prepared, each is
/// parsed and analyzed once per connection. It is still planned for each call's values: sessions set
/// `plan_cache_mode = force_custom_plan`, since a generic plan of the claim, made without knowing how
/// many records a call names, was measured to read more of the tables, the more so as they grow.
///
/// A prepared statement belongs to the server session: behind a connection pooler, use session
/// pooling (PgBouncer's `pool_mode = session`).
final class PreparedStatements: Sendable {
    /// The name of each statement's text, the same on every connection of the store, and the number
    /// of the next name to give.
    private let names = Mutex<(bySQL: [String: String], next: Int)>(([:], 1))

    /// Runs `statement` as a prepared statement on `connection`: PostgresNIO prepares it there the
    /// first time and executes it by name from then on. A statement with a NULL parameter, whose type
    /// is not known, runs as it is.
    ///
    /// PostgresNIO remembers a statement whose preparation failed as failed for as long as the
    /// connection lives, and fails every later call of it without asking the server. Preparing takes
    /// the locks of the tables a statement names, so a lock timeout or a cancel of the moment would make
    /// a connection useless for the statement for good, and every retry of a claim or commit on it fail.
    /// So a statement that fails is given a new name: its next call, on any connection, prepares it again.
    @discardableResult
    func run(_ statement: SQLStatement, on connection: PostgresConnection, logger: Logger) async throws -> [PostgresRow] {
        let types = statement.parameterTypes.compactMap { $0 }
        guard types.count == statement.parameterTypes.count else {
            return try await connection.run(statement, logger: logger).collect { $0 }
        }
        let name = names.withLock { names in
            if let name = names.bySQL[statement.sql] { return name }
            let name = "rederive_\(names.next)"
            names.next += 1
            names.bySQL[statement.sql] = name
            return name
        }
        let text = RuntimeStatement.Text(name: name, sql: statement.sql, types: types)
        do {
            return try await RuntimeStatement.$text.withValue(text) {
                try await connection.execute(RuntimeStatement(bindings: statement.binds), logger: logger).collect { $0 }
            }
        } catch {
            names.withLock { names in
                if names.bySQL[statement.sql] == name { names.bySQL[statement.sql] = nil }
            }
            throw error
        }
    }
}

/// A prepared statement whose text is made at run time.
///
/// PostgresNIO prepares statements of a type whose name and text are static; this type's static
/// properties read them from a task-local value, set only around one `execute`, which reads them
/// once, before it suspends.
private struct RuntimeStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    struct Text: Sendable {
        let name: String
        let sql: String
        let types: [PostgresDataType]
    }

    @TaskLocal static var text = Text(name: "", sql: "", types: [])

    static var name: String { text.name }
    static var sql: String { text.sql }
    static var bindingDataTypes: [PostgresDataType] { text.types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
#endif
