import GRDB
import Rederive
import RederiveSQL

/// Keeping what a commit replaces, so that the run can be rolled back.
extension BatchWriter {
    /// Records, for each processor of `replaced` (those whose own columns change), the stored values
    /// and the stamp about to be replaced; values that are the columns' defaults are not copied.
    /// A record the run stored before keeps what its first write replaced (`RollbackPlan`).
    /// Called before the step's stamps are written.
    func keepReplaced(_ replaced: ReplacedWrite, _ db: Database) throws {
        var changed: [ProcessorDescriptor] = []
        for kept in replaced.processors {
            let processor = tables.pipeline.processors[kept.processor]
            changed.append(processor)
            // Defaults need no copy: rollback puts a column without a kept value back to its default.
            // This spares a record's first derivation a row per column.
            guard case .values(let old) = kept.old,
                  !old.isUnchanged(byStoring: processor.columns.map(\.defaultValue), in: processor.columns)
            else { continue }
            // What the run's first write of the processor replaced is kept, not what a later one did.
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO rederive_replaced_values (run_id, pipeline, processor, record_id, column_name, value)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (
                    SELECT 1 FROM rederive_replaced_stamps WHERE run_id = ?1 AND pipeline = ?2 AND processor = ?3 AND record_id = ?4)
                """)
            for (column, value) in zip(processor.columns, old) {
                try insert.execute(arguments: [runID, tables.pipeline.name, processor.name, replaced.recordID, column.name, value.databaseValue])
            }
        }
        try keepStamps(changed, of: replaced, db)
    }

    /// Keeps the stamps of `processors` for this record as they are before the commit replaces them,
    /// in one statement; a stamp the run kept already stays, with the generation of this write.
    private func keepStamps(_ processors: [ProcessorDescriptor], of replaced: ReplacedWrite, _ db: Database) throws {
        guard !processors.isEmpty else { return }
        let names = Array(repeating: "(?)", count: processors.count).joined(separator: ", ")
        let keep = try db.cachedStatement(sql: """
            INSERT INTO rederive_replaced_stamps
                (run_id, pipeline, processor, record_id, source, derived_generation, had_stamp,
                 version, generation, payload_digest, inputs_digest, input_versions, current, stamp_run_id, derived_at)
            SELECT ?, ?, k.column1, ?, ?, ?, s.processor IS NOT NULL,
                s.version, s.generation, s.payload_digest, s.inputs_digest, s.input_versions, s.current, s.run_id, s.derived_at
            FROM (VALUES \(names)) k
            LEFT JOIN rederive_stamps s ON s.pipeline = ? AND s.processor = k.column1 AND s.record_id = ?
            WHERE true
            ON CONFLICT (run_id, pipeline, processor, record_id) DO UPDATE SET derived_generation = excluded.derived_generation
            """)
        var arguments: [(any DatabaseValueConvertible)?] = [
            runID, tables.pipeline.name, replaced.recordID, tables.pipeline.table, replaced.generation,
        ]
        arguments += processors.map(\.name)
        arguments += [tables.pipeline.name, replaced.recordID]
        try keep.execute(arguments: StatementArguments(arguments))
    }
}
