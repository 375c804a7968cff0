#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive
import RederiveSQL

/// Undoing a run, and clearing derived state.
extension PostgresStore: StoreAdministration {
    /// Puts back what a run replaced, in one transaction, as `StoreAdministration/rollback(run:pipelines:)` describes.
    public func rollback(run runID: Int64, pipelines: [Pipeline]) async throws -> RollbackReport {
        let logger = self.logger
        let keep = replacedValuesRunLimit
        let (location, statements) = (self.location, self.statements)
        return try await transaction("roll back run \(runID) in") { connection in
            guard let candidate = try await Self.rollbackCandidate(runID, connection, logger) else {
                throw RederiveError(.unknownName, "no run \(runID) in \(location)")
            }
            try RollbackRules.requireRollbackable(candidate, in: "\(location)", keep: keep)
            var report = RollbackReport()
            for pipeline in pipelines {
                let rollback = PostgresRollback(runID: runID, tables: PostgresPipelineTables(pipeline), statements: statements)
                report.add(try await rollback.restore(connection, logger))
            }
            return report
        }
    }

    /// Clears a pipeline's derived state in one transaction, as `StoreAdministration/reset(_:)` describes.
    public func reset(_ pipeline: Pipeline) async throws -> Int {
        try await prepare(pipeline)
        let tables = PostgresPipelineTables(pipeline)
        let logger = self.logger
        return try await transaction("reset \(pipeline.table) in") { connection in
            try RollbackRules.requireNoRunInProgress(
                try await Self.runsInProgress(connection, logger), before: "reset pipeline \"\(pipeline.name)\""
            )
            for table in ["rederive_stamps", "rederive_failures", "rederive_replaced", "rederive_projections"] {
                var delete = SQLStatement()
                delete.sql = "DELETE FROM \(table) WHERE pipeline = \(delete.bind(pipeline.name))"
                try await connection.run(delete, logger: logger)
            }
            let defaults = pipeline.outputColumns.map { "\(PostgresSQL.identifier($0.name)) = \(PostgresSQL.literal($0.defaultValue))" }
            try await connection.query(PostgresQuery(unsafeSQL: "UPDATE \(tables.destination) SET \(defaults.joined(separator: ", "))"), logger: logger)
            return try await Self.recordCount(pipeline, connection, logger)
        }
    }
}

extension PostgresStore {
    /// What `RollbackRules` needs to know of run `runID`, the run's row locked; nil when there is no such run.
    static func rollbackCandidate(_ runID: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> RollbackRules.Candidate? {
        var statement = SQLStatement()
        let run = statement.bind(runID)
        statement.sql = """
            SELECT r.status,
                r.derived + coalesce((SELECT sum(derived) FROM rederive_run_shares WHERE run_id = r.id), 0)::bigint,
                (SELECT count(*) FROM rederive_replaced WHERE run_id = r.id),
                (SELECT count(DISTINCT run_id) FROM rederive_replaced WHERE run_id > r.id)
            FROM rederive_runs r WHERE r.id = \(run) FOR UPDATE
            """
        let rows = try await connection.run(statement, logger: logger).collect { row in
            try row.decode((String, Int64, Int64, Int64).self)
        }
        guard let (status, derived, kept, later) = rows.first else { return nil }
        return RollbackRules.Candidate(
            runID: runID, status: RunStatus(rawValue: status) ?? .failed, changedRecords: Int(derived),
            keptEntries: Int(kept), laterRunsKeepingValues: Int(later), inProgress: try await runsInProgress(connection, logger)
        )
    }

    /// The runs that a worker's live lease derives now, with one of their workers.
    static func runsInProgress(_ connection: PostgresConnection, _ logger: Logger) async throws -> [RollbackRules.RunInProgress] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT DISTINCT ON (r.id) r.id, l.holder FROM rederive_runs r
            JOIN rederive_leases l ON l.run_id = r.id AND l.expires_at > clock_timestamp()
            WHERE r.status = \(statement.bind(RunStatus.running.rawValue))
            ORDER BY r.id, l.holder
            """
        return try await connection.run(statement, logger: logger).collect { row in
            let (id, holder) = try row.decode((Int64, String).self)
            return RollbackRules.RunInProgress(runID: id, holder: holder)
        }
    }
}

/// Puts back, for one pipeline, what one run replaced, inside the caller's transaction: reads what
/// the `RollbackPlan` needs and writes what it decides.
struct PostgresRollback {
    let runID: Int64
    let tables: PostgresPipelineTables
    let statements: PreparedStatements
    var pipeline: Pipeline { tables.pipeline }

    /// What the run kept, as the plan reads it, and the stamps it kept as they are written back.
    private struct Kept {
        var entries: [StoredRollbackEntry] = []
        var stamps: [String: PostgresStamp] = [:]
    }

    func restore(_ connection: PostgresConnection, _ logger: Logger) async throws -> RollbackReport {
        let kept = try await read(connection, logger)
        let plan = RollbackPlan(run: runID, pipeline: pipeline, kept: kept.entries)
        let writer = PostgresBatchWriter(tables: tables, runID: runID, statements: statements)
        for (index, entries) in Dictionary(grouping: plan.restored, by: \.processor).sorted(by: { $0.key < $1.key }) {
            try await writer.writeValues([index], entries.map { ($0.recordID, $0.values) }, connection, logger)
        }
        var removed: [(Int64, String)] = []
        var restored: [StampRow] = []
        for entry in plan.restored {
            let name = pipeline.processors[entry.processor].name
            switch entry.stamp {
            case .removed:
                removed.append((entry.recordID, name))
            case .kept(let current):
                guard var stamp = kept.stamps["\(entry.recordID) \(name)"] else { continue }
                stamp.current = current
                restored.append(StampRow(recordID: entry.recordID, processor: name, stamp: stamp))
            }
        }
        try await removeStamps(removed, connection, logger)
        try await writer.writeStamps(restored, connection, logger)
        try await forget(Dictionary(grouping: plan.restored, by: \.recordID).map { id, entries in
            (id, entries.map { pipeline.processors[$0.processor].name })
        }, connection, logger)
        if !plan.stale.isEmpty {
            try await writer.unstamp(plan.stale.map { ($0.recordID, pipeline.processors[$0.processor].name) }, connection, logger)
        }
        return plan.report
    }

    /// Per `"record processor"`, the newest run after this one that changed the processor's values
    /// of the record again, and keeps what it replaced.
    private func laterChanges(_ connection: PostgresConnection, _ logger: Logger) async throws -> [String: Int64] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT l.record_id, p.name, max(l.run_id) FROM rederive_replaced l, jsonb_object_keys(l.processors) AS p(name)
            WHERE l.run_id > \(statement.bind(runID)) AND l.pipeline = \(statement.bind(pipeline.name))
            GROUP BY l.record_id, p.name
            """
        let rows = try await connection.run(statement, logger: logger).collect { row in
            try row.decode((Int64, String, Int64).self)
        }
        return Dictionary(rows.map { ("\($0.0) \($0.1)", $0.2) }, uniquingKeysWith: { Swift.max($0, $1) })
    }

    /// The run's kept entries with what each record holds now, the records' rows locked first so that
    /// no commit changes them meanwhile.
    private func read(_ connection: PostgresConnection, _ logger: Logger) async throws -> Kept {
        // The records' rows of the pipeline's table before their bookkeeping rows, in the order an
        // app's DELETE takes them, as commits do: the two wait for each other, never deadlock.
        try await hold(connection, logger)
        var lock = SQLStatement()
        lock.sql = """
            SELECT r.record_id FROM rederive_records r
            WHERE r.source = \(lock.bind(pipeline.table)) AND r.record_id IN (
                SELECT record_id FROM rederive_replaced WHERE run_id = \(lock.bind(runID)) AND pipeline = \(lock.bind(pipeline.name)))
            ORDER BY r.record_id FOR UPDATE
            """
        try await connection.run(lock, logger: logger)
        let laterChanges = try await laterChanges(connection, logger)
        var statement = SQLStatement()
        let name = statement.bind(pipeline.name)
        statement.sql = """
            SELECT k.record_id, \(tables.keyExpression), k.generation, r.generation, k.processors::text,
                ARRAY(SELECT s.processor FROM rederive_stamps s WHERE s.source = k.source AND s.record_id = k.record_id AND s.pipeline = k.pipeline)
            FROM rederive_replaced k
            LEFT JOIN rederive_records r ON r.source = k.source AND r.record_id = k.record_id
            LEFT JOIN \(tables.table) t ON t.\(tables.id) = k.record_id
            WHERE k.run_id = \(statement.bind(runID)) AND k.pipeline = \(name)
            """
        var kept = Kept()
        let rows = try await connection.run(statement, logger: logger).collect { row in
            try row.decode((Int64, String?, Int64, Int64?, String, [String]).self)
        }
        for (id, key, derived, current, processors, stamps) in rows {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(processors.utf8)) as? [String: [String: Any]] else {
                throw RederiveError(.schemaMismatch, "a row of rederive_replaced is not what rederive wrote: \(processors.prefix(200))")
            }
            let stampsNow = Set(stamps)
            for (processor, entry) in parsed {
                let values = try (entry["values"] as? [String: Any] ?? [:]).mapValues(KeptValue.value)
                let stamp = try (entry["stamp"] as? [String: Any]).map(Self.stamp)
                kept.stamps["\(id) \(processor)"] = stamp
                kept.entries.append(StoredRollbackEntry(
                    recordID: id, key: key, processor: processor, derivedGeneration: derived, currentGeneration: current,
                    hasStamp: stampsNow.contains(processor), newestLaterChange: laterChanges["\(id) \(processor)"], values: values,
                    stamp: stamp.map { KeptStamp(current: $0.current, generation: $0.generation) }
                ))
            }
        }
        return kept
    }

    /// Locks, through the pipeline's holder function, the rows of the pipeline's table of the records
    /// the run kept values of that are still at the generation its last write derived from: the only
    /// ones whose values it may put back (`RollbackPlan`), so the only ones whose table or companion
    /// rows it writes. A pipeline last prepared before there were holder functions has none; its rows
    /// are left unlocked, as before.
    private func hold(_ connection: PostgresConnection, _ logger: Logger) async throws {
        let signature = PostgresPipelineSchema(tables: tables).holderSignature
        var exists = SQLStatement()
        exists.sql = "SELECT count(*) FROM pg_proc WHERE oid = to_regprocedure(\(exists.bind(signature)))"
        guard try await connection.count(exists, logger: logger) > 0 else { return }
        var statement = SQLStatement()
        statement.sql = """
            SELECT \(PostgresSQL.identifier(tables.holderName))(
                array_agg(record_id ORDER BY record_id), array_agg(generation ORDER BY record_id))
            FROM rederive_replaced WHERE run_id = \(statement.bind(runID)) AND pipeline = \(statement.bind(pipeline.name))
            """
        try await connection.run(statement, logger: logger)
    }

    /// A kept stamp entry, as `rederive_replaced` holds it.
    private static func stamp(_ json: [String: Any]) throws -> PostgresStamp {
        try JSONDecoder().decode(PostgresStamp.self, from: try JSONSerialization.data(withJSONObject: json))
    }

    /// Drops the stamps of processors that had none before the run.
    private func removeStamps(_ removed: [(Int64, String)], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !removed.isEmpty else { return }
        var statement = SQLStatement()
        statement.sql = """
            DELETE FROM rederive_stamps s USING unnest(\(statement.bind(removed.map(\.0))), \(statement.bind(removed.map(\.1)))) AS u(id, processor)
            WHERE s.pipeline = \(statement.bind(pipeline.name)) AND s.processor = u.processor AND s.record_id = u.id
            """
        try await connection.run(statement, logger: logger)
    }

    /// Forgets what the run replaced for the processors put back; a record with nothing left kept
    /// loses its row.
    private func forget(_ restored: [(id: Int64, names: [String])], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !restored.isEmpty else { return }
        let names = restored.map { entry in "[" + entry.names.map(PostgresStore.jsonString).joined(separator: ", ") + "]" }
        var statement = SQLStatement()
        let run = statement.bind(runID)
        let pipelineName = statement.bind(pipeline.name)
        statement.sql = """
            UPDATE rederive_replaced k SET processors = k.processors - ARRAY(SELECT jsonb_array_elements_text(u.names::jsonb))
            FROM unnest(\(statement.bind(restored.map(\.id))), \(statement.bind(names))) AS u(id, names)
            WHERE k.run_id = \(run) AND k.pipeline = \(pipelineName) AND k.record_id = u.id
            """
        try await connection.run(statement, logger: logger)
        var delete = SQLStatement()
        delete.sql = """
            DELETE FROM rederive_replaced WHERE run_id = \(delete.bind(runID)) AND pipeline = \(delete.bind(pipeline.name))
            AND processors = '{}'::jsonb
            """
        try await connection.run(delete, logger: logger)
    }
}
#endif
