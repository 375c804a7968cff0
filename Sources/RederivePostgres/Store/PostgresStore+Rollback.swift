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
                try await rollback.restore(connection, logger, into: &report)
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

/// Puts back, for one pipeline, what one run replaced, inside the caller's transaction.
struct PostgresRollback {
    let runID: Int64
    let tables: PostgresPipelineTables
    let statements: PreparedStatements
    var pipeline: Pipeline { tables.pipeline }

    /// One record's row of `rederive_replaced`, with what the record holds now.
    private struct Kept {
        let recordID: Int64
        let key: String?
        /// The generation the run derived from, and the record's now (nil once it was deleted).
        let derivedGeneration: Int64
        let currentGeneration: Int64?
        /// Per processor: `{"values": {...} | null, "stamp": {...} | null}`.
        let processors: [String: [String: Any]]
        let stamps: [String: PostgresStamp]
    }

    func restore(_ connection: PostgresConnection, _ logger: Logger, into report: inout RollbackReport) async throws {
        let kept = try await read(connection, logger)
        let laterChanges = try await laterChanges(connection, logger)
        var values: [String: [(Int64, [DerivedValue])]] = [:]
        var stamps: [(id: Int64, removed: [String], restored: String)] = []
        var restoredNames: [(id: Int64, names: [String])] = []
        var restoredPairs: Set<String> = []
        for record in kept {
            var removed: [String] = []
            var restored: [String] = []
            var names: [String] = []
            for name in record.processors.keys.sorted() {
                let entry = RollbackReport.Entry(pipeline: pipeline.name, recordID: record.recordID, key: record.key, processor: name, reason: nil)
                if let reason = skipReason(record, name, laterChange: laterChanges["\(record.recordID) \(name)"]) {
                    report.skipped.append(RollbackReport.Entry(
                        pipeline: entry.pipeline, recordID: entry.recordID, key: entry.key, processor: name, reason: reason
                    ))
                    continue
                }
                guard let processor = pipeline.processor(named: name), let kept = record.processors[name] else { continue }
                values[name, default: []].append((record.recordID, try Self.values(of: processor, kept["values"])))
                if let stamp = kept["stamp"] as? [String: Any] {
                    restored.append("\(PostgresStore.jsonString(name)): \(try restoredStamp(stamp, derivedGeneration: record.derivedGeneration))")
                } else {
                    removed.append(name)
                }
                names.append(name)
                restoredPairs.insert("\(record.recordID) \(name)")
                report.restored.append(entry)
            }
            if !names.isEmpty {
                stamps.append((record.recordID, removed, "{" + restored.joined(separator: ", ") + "}"))
                restoredNames.append((record.recordID, names))
            }
        }
        let writer = PostgresBatchWriter(tables: tables, runID: runID, statements: statements)
        for (name, rows) in values {
            guard let index = pipeline.processors.firstIndex(where: { $0.name == name }) else { continue }
            try await writer.writeValues([index], rows, connection, logger)
        }
        try await writeStamps(stamps, connection, logger)
        try await forget(restoredNames, connection, logger)
        // Dependents read the values now replaced: stale, unless restored by this rollback as well.
        let dependents = restoredNames.flatMap { id, names in
            names.flatMap { pipeline.dependents(of: $0) }.filter { !restoredPairs.contains("\(id) \($0)") }.map { (id, $0) }
        }
        if !dependents.isEmpty {
            try await writer.unstamp(dependents, connection, logger)
        }
    }

    /// Why a processor's kept values cannot be put back; nil when they can.
    /// `laterChange` is the newest later run that changed the processor's values of the record, if any.
    private func skipReason(_ record: Kept, _ name: String, laterChange: Int64?) -> String? {
        guard let current = record.currentGeneration else { return "the record was deleted" }
        if current != record.derivedGeneration { return "its payload changed since run \(runID)" }
        if let later = RollbackRules.laterChange(after: runID, newestLaterChange: laterChange) { return later }
        if record.stamps[name] == nil { return "its stamp was removed since run \(runID)" }
        if pipeline.processor(named: name) == nil { return "the pipeline no longer has processor \"\(name)\"" }
        return nil
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

    /// The run's kept rows with each record's generation and stamps now, the records' rows locked
    /// first so that no commit changes them meanwhile.
    private func read(_ connection: PostgresConnection, _ logger: Logger) async throws -> [Kept] {
        var lock = SQLStatement()
        lock.sql = """
            SELECT r.record_id FROM rederive_records r
            WHERE r.source = \(lock.bind(pipeline.table)) AND r.record_id IN (
                SELECT record_id FROM rederive_replaced WHERE run_id = \(lock.bind(runID)) AND pipeline = \(lock.bind(pipeline.name)))
            ORDER BY r.record_id FOR UPDATE
            """
        try await connection.run(lock, logger: logger)
        var statement = SQLStatement()
        let name = statement.bind(pipeline.name)
        statement.sql = """
            SELECT k.record_id, \(tables.keyExpression), k.generation, r.generation, k.processors::text, s.processors::text
            FROM rederive_replaced k
            LEFT JOIN rederive_records r ON r.source = k.source AND r.record_id = k.record_id
            LEFT JOIN rederive_stamps s ON s.pipeline = k.pipeline AND s.record_id = k.record_id
            LEFT JOIN \(tables.table) t ON t.\(tables.id) = k.record_id
            WHERE k.run_id = \(statement.bind(runID)) AND k.pipeline = \(name)
            ORDER BY k.record_id
            """
        return try await connection.run(statement, logger: logger).collect { row in
            let (id, key, derived, current, processors, stamps) = try row.decode((Int64, String?, Int64, Int64?, String, String?).self)
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(processors.utf8)) as? [String: [String: Any]] else {
                throw RederiveError(.schemaMismatch, "a row of rederive_replaced is not what rederive wrote: \(processors.prefix(200))")
            }
            return Kept(
                recordID: id, key: key, derivedGeneration: derived, currentGeneration: current,
                processors: parsed, stamps: try PostgresStamp.entries(stamps)
            )
        }
    }

    /// The processor's kept values in its columns' order; a column without a kept value (the record
    /// had no row of derived values, or the column is newer) goes back to its declared default.
    private static func values(of processor: ProcessorDescriptor, _ kept: Any?) throws -> [DerivedValue] {
        let byColumn = kept as? [String: Any] ?? [:]
        return try processor.columns.map { column in
            try byColumn[column.name].map(KeptValue.value) ?? column.defaultValue
        }
    }

    /// The kept stamp entry as JSON, current only if it was and for the payload the record still has.
    private func restoredStamp(_ stamp: [String: Any], derivedGeneration: Int64) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: stamp)
        var entry = try JSONDecoder().decode(PostgresStamp.self, from: data)
        entry.current = entry.current && entry.generation == derivedGeneration
        return String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
    }

    /// Per record, drops the stamp entries of processors that had none before the run and puts back
    /// the others.
    private func writeStamps(_ stamps: [(id: Int64, removed: [String], restored: String)], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !stamps.isEmpty else { return }
        let removed = stamps.map { entry in "[" + entry.removed.map(PostgresStore.jsonString).joined(separator: ", ") + "]" }
        var statement = SQLStatement()
        statement.sql = """
            UPDATE rederive_stamps s
            SET processors = (s.processors - ARRAY(SELECT jsonb_array_elements_text(u.removed::jsonb))) || u.restored::jsonb
            FROM unnest(\(statement.bind(stamps.map(\.id))), \(statement.bind(removed)), \(statement.bind(stamps.map(\.restored))))
                AS u(id, removed, restored)
            WHERE s.pipeline = \(statement.bind(pipeline.name)) AND s.record_id = u.id
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
