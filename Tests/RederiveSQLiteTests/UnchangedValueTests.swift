import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

/// One rule says whether storing a value leaves a column as it is, and it is SQLite's: the commit,
/// the dry run and `verify` agree on NaN, signed zeros and integral reals.
@Suite("Unchanged values", .timeLimit(.minutes(5)))
struct UnchangedValueTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// Values that fit their column, with what SQLite might do to them.
    static let storedCases: [(DerivedValue, ColumnType)] = [
        (.real(.nan), .real), (.real(-0.0), .real), (.real(0), .real), (.real(8), .real), (.real(8.5), .real),
        (.real(-0.5), .real), (.real(.infinity), .real), (.real(-.infinity), .real), (.real(.leastNonzeroMagnitude), .real),
        (.integer(8), .real), (.integer(9_007_199_254_740_993), .real), (.integer(Int64.max), .real), (.null, .real),
        (.integer(8), .integer), (.integer(Int64.min), .integer), (.null, .integer),
        (.text(precomposed), .text), (.text(decomposed), .text), (.text("8"), .text), (.text(""), .text),
        (.blob([0, 1, 255]), .blob), (.null, .text), (.null, .blob),
    ]

    @Test(arguments: storedCases)
    func theRuleIsWhatSQLiteReadsBack(value: DerivedValue, type: ColumnType) async throws {
        try await withTemporaryDatabase { path in
            let db = try appConnection(path)
            let held = try await db.write { db in
                try db.execute(sql: "CREATE TABLE t (v \(SQLiteStorage.columnType(type)))")
                try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [Self.databaseValue(value)])
                return try DatabaseValue.fetchOne(db, sql: "SELECT v FROM t") ?? .null
            }
            let readBack = Self.derivedValue(held)
            #expect(Self.identical(readBack, SQLiteStorage.rules.stored(value, in: type)), "\(value) in \(type): SQLite holds \(readBack)")
            #expect(SQLiteStorage.rules.isUnchanged(readBack, byStoring: value, in: type))
        }
    }

    @Test(arguments: [
        (DerivedValue.null, DerivedValue.real(.nan), ColumnType.real, true),
        (.real(0), .real(-0.0), .real, true),
        (.real(8), .integer(8), .real, true),
        (.real(9_007_199_254_740_992), .integer(9_007_199_254_740_993), .real, true),
        (.real(8), .real(8.5), .real, false),
        (.null, .real(0), .real, false),
        (.integer(9_007_199_254_740_992), .integer(9_007_199_254_740_993), .integer, false),
        (.text(precomposed), .text(decomposed), .text, false),
        (.text(precomposed), .text(precomposed), .text, true),
        (.blob([1]), .blob([1, 0]), .blob, false),
    ])
    func storingChangesTheColumnOnlyWhenSQLiteWouldHoldSomethingElse(
        held: DerivedValue, new: DerivedValue, type: ColumnType, unchanged: Bool
    ) {
        #expect(SQLiteStorage.rules.isUnchanged(held, byStoring: new, in: type) == unchanged)
    }

    // MARK: The three paths

    static let layouts: [Pipeline.Layout?] = [nil, .inline]

    @Test(arguments: layouts)
    func aSecondRunOverTheSameInputCountsEveryRecordUnchanged(layout: Pipeline.Layout?) async throws {
        try await withTemporaryDatabase { path in
            let pipeline = Self.edgePipeline(layout: layout)
            try await prepare(pipeline, at: path)
            try insertRecords(samples(12), into: path)
            let first = try await run(pipeline, at: path)
            #expect(first.counts == RunCounts(changed: 12))

            _ = try await SQLiteStore(path: path).invalidate(pipeline, processors: nil, keys: nil)
            let second = try await run(pipeline, at: path)
            #expect(second.pending == 12)
            #expect(second.counts == RunCounts(unchanged: 12))
        }
    }

    @Test(arguments: layouts)
    func aRunKeepsForRollbackOnlyTheValuesThatChange(layout: Pipeline.Layout?) async throws {
        try await withTemporaryDatabase { path in
            let pipeline = Self.edgePipeline(layout: layout)
            try await prepare(pipeline, at: path)
            try insertRecords(samples(12), into: path)
            _ = try await run(pipeline, at: path)
            // Someone overwrote one processor's column: the next run changes it back, and only it.
            let table = layout == .inline ? "items" : "items_derived"
            try appExecute(path, "UPDATE \(table) SET value_count = 99")
            _ = try await SQLiteStore(path: path).invalidate(pipeline, processors: nil, keys: nil)

            let second = try await run(pipeline, at: path)
            #expect(second.counts == RunCounts(changed: 12))
            let inspect = Inspection(path: path)
            let kept = "FROM rederive_replaced_values WHERE run_id = ? AND processor = ?"
            #expect(try inspect.count("SELECT count(*) \(kept) AND value = 99", [second.runID, "count"]) == 12)
            #expect(try inspect.count("SELECT count(*) \(kept)", [second.runID, "edges"]) == 0)
            #expect(try inspect.count("SELECT count(*) FROM rederive_replaced_stamps WHERE run_id = ? AND processor = 'edges'", [second.runID]) == 0)
        }
    }

    @Test(arguments: layouts)
    func aDryRunOverTheSameInputCountsNoChange(layout: Pipeline.Layout?) async throws {
        try await withTemporaryDatabase { path in
            let pipeline = Self.edgePipeline(layout: layout)
            try await prepare(pipeline, at: path)
            try insertRecords(samples(12), into: path)
            _ = try await run(pipeline, at: path)
            let store = try SQLiteStore(path: path)
            _ = try await store.invalidate(pipeline, processors: nil, keys: nil)

            let report = try await DryRun(store: store, pipelines: [pipeline]).run()
            #expect(report.examined == 12)
            #expect(report.columns.map(\.column) == pipeline.outputColumns.map(\.name))
            for column in report.columns {
                #expect(column.derived == 12, "\(column.column)")
                #expect(column.changed == 0, "\(column.column): \(column.commonChanges) \(String(describing: column.differences))")
            }
        }
    }

    @Test(arguments: layouts)
    func verifyFindsNoDifferenceInWhatARunStored(layout: Pipeline.Layout?) async throws {
        try await withTemporaryDatabase { path in
            let pipeline = Self.edgePipeline(layout: layout)
            try await prepare(pipeline, at: path)
            try insertRecords(samples(12), into: path)
            _ = try await run(pipeline, at: path)

            let report = try await Verifier(source: try SQLiteStore(path: path), pipelines: [pipeline]).verify()
            #expect(report.records == 12)
            #expect(report.compared == 24)
            #expect(report.differences.isEmpty, "\(report.differences.prefix(3))")
        }
    }

    // MARK: Support

    /// A pipeline over `items`: `edges` returns values that SQLite stores otherwise than they are
    /// returned, `count` an ordinary integer.
    static func edgePipeline(layout: Pipeline.Layout?) -> Pipeline {
        let edges = Processor<Sample>(
            name: "edges",
            version: 1,
            columns: [.real("not_a_number"), .real("negative_zero"), .real("integral_real"), .real("integer_in_real")]
        ) { sample in
            let first = sample.values[0]
            return [.real(.nan), .real(-0.0), .real(first.rounded() + 2), .integer(Int64(first) * 1_000)]
        }
        let count = Processor<Sample>(name: "count", version: 1, columns: [.integer("value_count")]) { sample in
            [.integer(sample.values.count)]
        }
        return Pipeline(
            name: "items", table: "items", keyColumn: "key", layout: layout, decoding: Sample.self, processors: [edges, count]
        )
    }

    static func databaseValue(_ value: DerivedValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }

    static func derivedValue(_ value: DatabaseValue) -> DerivedValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let data): .blob([UInt8](data))
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
