import Rederive
import RederiveSQL
@testable import RederiveSQLite
import RederiveTestSupport
import Testing

/// The statements the shared SQL builders write in SQLite's dialect, pinned character for character:
/// a change to a builder or to the dialect must not change what a database already ran, nor the
/// trigger text that preparing compares with the installed triggers.
@Suite("Generated SQL on SQLite")
struct GeneratedSQLTests {
    typealias Schema = RederiveSQL.PipelineSchema<SQL>
    typealias Tables = RederiveSQL.PipelineTables<SQL>

    @Test func aNewPipelineGetsItsTableAndItsCompanionTable() throws {
        let schema = Schema(tables: Tables(TestPipeline().pipeline))
        let changes = try schema.changes(table: nil, companion: nil)
        #expect(changes.createTable && changes.createCompanion && changes.addColumns.isEmpty)
        #expect(schema.statements(for: changes) == [
            #"CREATE TABLE "items" ("id" INTEGER PRIMARY KEY, "key" TEXT NOT NULL UNIQUE, "payload" BLOB NOT NULL)"#,
            #"CREATE TABLE "items_derived" (id INTEGER PRIMARY KEY REFERENCES "items"("id") ON DELETE CASCADE, "#
                + #""total" REAL DEFAULT NULL, "value_count" INTEGER DEFAULT 0, "label_upper" TEXT DEFAULT NULL)"#,
        ])
    }

    @Test func anExistingTableGetsTheColumnsItLacksWhateverTheCaseOfThoseItHas() throws {
        let schema = Schema(tables: Tables(TestPipeline(layout: .inline).pipeline))
        let existing = ["id": "INTEGER", "key": "TEXT", "payload": "BLOB", "total": "REAL"]
        let changes = try schema.changes(table: existing, companion: nil)
        #expect(schema.statements(for: changes) == [
            #"ALTER TABLE "items" ADD COLUMN "value_count" INTEGER DEFAULT 0"#,
            #"ALTER TABLE "items" ADD COLUMN "label_upper" TEXT DEFAULT NULL"#,
        ])
        #expect(throws: RederiveError.self) { try schema.changes(table: ["id": "INTEGER", "payload": "BLOB"], companion: nil) }
    }

    @Test func defaultsAndNamesAreWrittenAsSQLiteReadsThem() {
        let column = { (name: String, type: ColumnType, value: DerivedValue) in
            SQL.definition(of: OutputColumn(name: name, type: type, defaultValue: value))
        }
        #expect(column("r q", .real, .real(.infinity)) == #""r q" REAL DEFAULT NULL"#)
        #expect(column("r2", .real, .real(2.5)) == #""r2" REAL DEFAULT 2.5"#)
        #expect(column("t", .text, .text("it's")) == #""t" TEXT DEFAULT 'it''s'"#)
        #expect(column("b", .blob, .blob([0, 171])) == #""b" BLOB DEFAULT X'00AB'"#)
        #expect(column("i", .integer, .integer(-5)) == #""i" INTEGER DEFAULT -5"#)
        let tables = Tables(Pipeline(
            name: "odd", table: "we'ird", idColumn: "rid", payloadColumn: "body", decoding: Sample.self, processors: []
        ))
        #expect(tables.keyExpression == "NULL")
        #expect(tables.source == "'we''ird'")
        #expect(tables.destination == #""we'ird_derived""#)
        #expect(tables.destinationID == #""id""#)
    }

    @Test func aPendingRowIsReadInItsColumnsOrder() {
        let pipeline = DependentPipeline().pipeline
        let plan = RunPlan(pipeline: pipeline)
        let layout = PendingRowLayout(plan, staleFlags: plan.selection, failureColumns: [plan.dependents[0]], digestColumns: plan.dependents)
        #expect(layout.columnCount == 2 + plan.selection.count + 1 + plan.dependents.count)
        let stale = plan.selection.count
        let pick = layout.pick(
            recordID: 7, generation: 9,
            flag: { $0 == 2 }, text: { $0 == 2 + stale ? "upstream" : nil }, integer: { $0 == 3 + stale ? 42 : nil }
        )
        #expect(pick.recordID == 7 && pick.generation == 9)
        #expect(pick.staleProcessors == [plan.selection[0]])
        #expect(pick.failures == [plan.dependents[0]: .upstream])
        #expect(pick.consumedDigests == [plan.dependents[0]: 42])
        #expect(pick.readsPayload == plan.readsPayload(stale: [plan.selection[0]]))
    }
}
