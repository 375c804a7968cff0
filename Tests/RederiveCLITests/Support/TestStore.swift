import Foundation
import GRDB
import RederiveTestSupport
import Testing
#if PostgreSQL
import RederivePostgresTestSupport
#endif

/// Which store a parameterised test runs on: SQLite always, and PostgreSQL in a build with the
/// PostgreSQL trait on a machine with the server binaries (or where they are required).
enum TestStore: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    #if PostgreSQL
    case postgres
    #endif

    var testDescription: String { rawValue }

    /// The stores this test run can use.
    static var available: [TestStore] {
        #if PostgreSQL
        PostgresServer.testsRun ? allCases : [.sqlite]
        #else
        allCases
        #endif
    }

    /// Runs `body` on a harness whose database is a new SQLite file or a new PostgreSQL database.
    func withHarness<T>(_ body: (CommandHarness) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            return try await CommandHarness.withHarness(body)
        #if PostgreSQL
        case .postgres:
            return try await CommandHarness.withHarness(serverDatabase: try PostgresServer.shared().makeDatabase(), body)
        #endif
        }
    }
}

/// Plain SQL on the harness's database, as another program would send it: through GRDB on SQLite,
/// through `psql` on PostgreSQL. The statements must be written in SQL both understand.
extension CommandHarness {
    /// Runs statements that return nothing.
    func execute(_ sql: String) async throws {
        #if PostgreSQL
        if let name = serverDatabaseName {
            // From a file: a statement holding a whole payload is longer than a command line may be.
            let file = directory.appendingPathComponent("statement-\(UUID().uuidString).sql")
            try Data(sql.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let server = try PostgresServer.shared()
            try PostgresServer.run(
                ["\(PostgresServer.binaries)/psql", "-h", server.host, "-p", String(server.port), "-U", "postgres", "-d", name,
                 "-v", "ON_ERROR_STOP=1", "-q", "-f", file.path],
                asServer: false
            )
            return
        }
        #endif
        try await connection().write { db in try db.execute(sql: sql) }
    }

    /// The rows of a query, each field as text: numbers as the database prints them, NULL as `nullCellText`.
    func rows(_ sql: String) async throws -> [[String]] {
        #if PostgreSQL
        if let name = serverDatabaseName {
            return try PostgresServer.shared().psqlRows(name, sql)
        }
        #endif
        return try await connection().read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value in
                    switch value.storage {
                    case .null: nullCellText
                    case .int64(let number): String(number)
                    case .double(let number): "\(number)"
                    case .string(let text): text
                    case .blob(let data): data.base64EncodedString()
                    }
                }
            }
        }
    }

    /// The one integer a query returns.
    func count(_ sql: String) async throws -> Int {
        let rows = try await rows(sql)
        return try #require(rows.first?.first.flatMap { Int($0) }, "\(sql) returned \(rows)")
    }

    /// Replaces a record's payload as an app would, by key.
    func replacePayload(key: String, with payload: [UInt8]) async throws {
        try await execute(replacingPayload(key: key, with: payload))
    }

    /// The statement that replaces a record's payload by key, as an app would write it.
    func replacingPayload(key: String, with payload: [UInt8]) -> String {
        "UPDATE room_scans SET payload = \(blobLiteral(payload)) WHERE scan_id = '\(key.replacingOccurrences(of: "'", with: "''"))'"
    }

    /// Bytes as a literal of the harness's database: `X'…'` on SQLite, `'\x…'::bytea` on PostgreSQL.
    func blobLiteral(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return serverDatabase == nil ? "X'\(hex)'" : "'\\x\(hex)'::bytea"
    }

    /// The bytes of a blob field of ``rows(_:)``: base64 on SQLite, `\x…` hex as psql prints `bytea`.
    static func blob(_ field: String) throws -> [UInt8] {
        guard field.hasPrefix("\\x") else {
            return [UInt8](try #require(Data(base64Encoded: field), "not a blob: \(field.prefix(40))"))
        }
        let hex = Array(field.utf8.dropFirst(2))
        return try stride(from: 0, to: hex.count, by: 2).map { index in
            try #require(UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16), "not hex: \(field.prefix(40))")
        }
    }

    #if PostgreSQL
    /// The database name of ``serverDatabase``.
    var serverDatabaseName: String? {
        serverDatabase.map(PostgresServer.databaseName(in:))
    }
    #endif
}
