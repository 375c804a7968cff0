#if PostgreSQL
import Foundation
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import RederiveStoreTesting
import Testing

/// The count triggers that join a statement's rows to other rows plan that join for each statement's
/// rows. PL/pgSQL plans a trigger's statement once per session, for the first statement it sees: a
/// claim of one record then made a later commit of thousands join its old and new rows by a nested
/// loop, and a large write made each later one-record write pass over every record. The records'
/// update trigger first asks, in a statement planned once, whether any generation changed: a set
/// difference, which stays linear whatever rows it was planned for.
@Suite("count trigger plans on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresCountTriggerPlanTests {
    @Test func eachStatementOfACountTriggerIsPlannedForItsRows() async throws {
        let conformance = ConformancePipeline(projectionVersion: 1)
        let url = try PostgresServer.shared().makeDatabase()
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        let records = 2_000
        let items = (0..<records).map { (key: "k\($0)", payload: ConformancePipeline.item("s\($0)", [Double($0)])) }
        try await store.prepare(conformance.pipeline)
        _ = try await store.importPayloads(items, into: conformance.pipeline)
        let configuration = Runner.Configuration(parallelism: 2, batchSize: 500)
        _ = try await Runner(store: store, pipelines: [conformance.pipeline], configuration: configuration).run()

        // One session, as a worker's connection: a small statement first, then a large one, on each table.
        let output = try PostgresServer.shared().psql(PostgresServer.databaseName(in: url), """
            LOAD 'auto_explain';
            SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
            SET auto_explain.log_analyze = on; SET auto_explain.log_timing = off;
            SET auto_explain.log_level = notice; SET auto_explain.log_format = json;
            UPDATE rederive_records SET claimed_by = 'one' WHERE record_id = (SELECT min(record_id) FROM rederive_records);
            UPDATE rederive_records SET claimed_by = 'all';
            UPDATE rederive_records SET generation = nextval('rederive_generations') WHERE record_id = (SELECT min(record_id) FROM rederive_records);
            UPDATE rederive_records SET generation = nextval('rederive_generations');
            UPDATE rederive_projections SET version = version;
            UPDATE rederive_projections SET version = version WHERE record_id = (SELECT min(record_id) FROM rederive_projections);
            """)
        let plans = ExplainedPlan.all(in: output)
        let counting = plans.filter { $0.query.contains("rederive_count_deltas") && $0.query.contains("'projections'") }
        let recordUpdates = counting.filter { $0.query.contains("rederive_old_rows o JOIN rederive_new_rows n") }
        let projectionUpdates = counting.filter { $0.query.contains("JOIN rederive_records r") }
        // Claims renew no generation: the records' trigger looks at that alone, and counts the two
        // statements that renew generations.
        let shortcuts = plans.filter { $0.query.contains("EXCEPT SELECT source, record_id, generation FROM rederive_old_rows") }
        #expect(shortcuts.map(\.transitionRows) == [1, records, 1, records], "\(plans.map(\.query))")
        #expect(recordUpdates.map(\.transitionRows) == [1, records], "\(counting.map(\.query))")
        #expect(projectionUpdates.map(\.transitionRows) == [records, 1], "\(counting.map(\.query))")

        for plan in recordUpdates + shortcuts where plan.transitionRows > 1 {
            #expect(!plan.joinsTransitionTablesByNestedLoop, "a count joins \(plan.transitionRows) old rows to as many new ones by a nested loop")
        }
        for plan in projectionUpdates where plan.transitionRows == 1 {
            #expect(!plan.scansAll(of: "rederive_records"), "a one-record write's count reads every record")
        }
    }
}
#endif
