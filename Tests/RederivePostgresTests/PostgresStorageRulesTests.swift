#if PostgreSQL
import PostgresNIO
import Rederive
@testable import RederivePostgres
import RederivePostgresTestSupport
import Testing

/// The PostgreSQL store holds every value as the rules it declares say (``PostgresStorage/rules``):
/// bound by the store into a column of the type it declares, each value reads back as
/// `rules.stored(value, in: type)`, to the bit.
@Suite("storage rules on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresStorageRulesTests {
    static let cases: [(DerivedValue, ColumnType)] = [
        (.real(.nan), .real), (.real(-0.0), .real), (.real(0), .real), (.real(8), .real), (.real(8.5), .real),
        (.real(.infinity), .real), (.real(-.infinity), .real), (.real(.leastNonzeroMagnitude), .real),
        (.integer(8), .real), (.integer(9_007_199_254_740_993), .real), (.integer(Int64.max), .real), (.null, .real),
        (.integer(8), .integer), (.integer(Int64.min), .integer), (.null, .integer),
        (.text("caf\u{E9}"), .text), (.text("cafe\u{301}"), .text), (.text(""), .text),
        (.blob([0, 1, 255]), .blob), (.blob([]), .blob), (.null, .text), (.null, .blob),
    ]

    @Test func everyValueReadsBackAsTheDeclaredRulesSay() async throws {
        let server = try PostgresServer.shared()
        let store = try await PostgresStore(url: try server.makeDatabase())
        defer { store.close() }
        let logger = store.logger
        let rules = store.storageRules
        #expect(rules == PostgresStorage.rules)
        try await store.withConnection("test") { connection in
            for (value, type) in Self.cases {
                try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS held"), logger: logger)
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE TEMPORARY TABLE held (v \(PostgresStorage.columnType(type)))"), logger: logger
                )
                var insert = SQLStatement()
                insert.sql = "INSERT INTO held (v) VALUES (\(insert.bind(value, column: type)))"
                try await connection.run(insert, logger: logger)
                var held: [DerivedValue] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: "SELECT v FROM held"), logger: logger) {
                    held += try PostgresStore.values(row.makeRandomAccess(), from: 0, [OutputColumn(name: "v", type: type)])
                }
                let expected = rules.stored(value, in: type)
                #expect(held.count == 1 && Self.identical(held[0], expected), "\(value) in \(type): PostgreSQL holds \(held)")
                #expect(held.count == 1 && rules.isUnchanged(held[0], byStoring: value, in: type))
            }
        }
    }

    /// Equal to the bit: the sign of a zero counts, and text compares by its UTF-8 bytes.
    static func identical(_ a: DerivedValue, _ b: DerivedValue) -> Bool {
        switch (a, b) {
        case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern
        case (.text(let x), .text(let y)): Array(x.utf8) == Array(y.utf8)
        default: a == b
        }
    }
}
#endif
