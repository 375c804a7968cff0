#if PostgreSQL
import Dispatch
import Foundation
import PostgresNIO
import Rederive
import Synchronization

/// A backfill's `MigrationDatabase` on PostgreSQL: the migration's connection, inside its transaction,
/// values bound to numbered parameters.
///
/// A backfill is synchronous, as SQLite runs it, and PostgresNIO answers asynchronously, so the step
/// runs on a thread of its own (``run(_:on:logger:)``), which waits for each statement's answer.
struct PostgresMigrationDatabase: MigrationDatabase {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs `body` on a thread that may wait, given the database on `connection`.
    static func run(
        _ body: @escaping @Sendable (any MigrationDatabase) throws -> Void, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await BlockingWork.run { try body(PostgresMigrationDatabase(connection: connection, logger: logger)) }
    }

    func execute(_ statement: MigrationSQL) throws {
        _ = try wait(statement)
    }

    func rows(_ query: MigrationSQL) throws -> [MigrationRow] {
        try wait(query)
    }

    /// Runs the statement and waits, on this thread, for its rows.
    private func wait(_ statement: MigrationSQL) throws -> [MigrationRow] {
        let answer = Answer()
        let connection = self.connection
        let logger = self.logger
        let query = Self.query(statement)
        Task {
            let result: Result<[MigrationRow], any Error>
            do {
                result = .success(try await connection.run(query, logger: logger).collect(Self.row))
            } catch {
                result = .failure(PostgresProblem(error))
            }
            answer.result.withLock { $0 = result }
            answer.ready.signal()
        }
        answer.ready.wait()
        return try answer.result.withLock { $0! }.get()
    }

    /// The statement with its values bound as parameters `$1`, `$2`, ….
    private static func query(_ statement: MigrationSQL) -> SQLStatement {
        var query = SQLStatement()
        let (sql, values) = statement.rendered { "$\($0)" }
        for value in values {
            switch value {
            case .null: _ = query.bindNull(as: "unknown")
            case .integer(let value): _ = query.bind(value)
            case .real(let value): _ = query.bind(value)
            case .text(let value): _ = query.bind(value)
            case .blob(let bytes): _ = query.bind(ByteBuffer(bytes: bytes))
            }
        }
        query.sql = sql
        return query
    }

    /// A row's cells as the engine's values: integers, numbers, text and bytes, and any other type as
    /// the text PostgreSQL writes for it.
    private static func row(_ row: PostgresRow) throws -> MigrationRow {
        var columns: [String] = []
        var values: [DerivedValue] = []
        for cell in row {
            columns.append(cell.columnName)
            values.append(try value(cell))
        }
        return MigrationRow(columns: columns, values: values)
    }

    private static func value(_ cell: PostgresCell) throws -> DerivedValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8:
            return .integer(try cell.decode(Int64.self))
        case .float4, .float8:
            return .real(try cell.decode(Double.self))
        case .bool:
            return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            return .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
        case .numeric:
            let number = try cell.decode(Decimal.self)
            let integer = NSDecimalNumber(decimal: number)
            if number == Decimal(integer.int64Value) { return .integer(integer.int64Value) }
            return .real(integer.doubleValue)
        default:
            return .text(try cell.decode(String.self))
        }
    }
}

/// A statement's answer, handed from the task that ran it to the thread that waits for it.
private final class Answer: Sendable {
    let result = Mutex<Result<[MigrationRow], any Error>?>(nil)
    let ready = DispatchSemaphore(value: 0)
}
#endif
