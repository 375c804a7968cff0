import GRDB
import Rederive
import RederiveSQL

/// Keeping what a commit replaces, so that the run can be rolled back.
extension BatchWriter {
    /// Records, for each record and processor of `replaced` (those whose own columns change), the
    /// stored values and the stamp about to be replaced; values that are the columns' defaults are not
    /// copied. A record the run stored before keeps what its first write replaced (`RollbackPlan`).
    /// Called before the step's stamps are written; each record appears at most once in a step.
    func keepReplaced(_ replaced: [ReplacedWrite], _ db: Database, _ statements: CommitStatements) throws {
        var kept: [Int: [ReplacedWrite]] = [:]
        for write in replaced {
            for processor in write.processors {
                try keepValues(processor, of: write, db)
                kept[processor.processor, default: []].append(write)
            }
        }
        // Every value first: a value is kept only while the run has no stamp kept for its record.
        for (index, writes) in kept.sorted(by: { $0.key < $1.key }) {
            let shared: [(any DatabaseValueConvertible)?] = [
                runID, tables.pipeline.name, tables.pipeline.processors[index].name, tables.pipeline.table,
            ]
            try Self.execute(statements.keepStamps(ofRecords:), for: writes, after: shared) { write in
                [write.recordID, write.generation]
            }
        }
    }

    /// Keeps one processor's replaced values of one record, unless they are the columns' defaults:
    /// rollback puts a column without a kept value back to its default, which spares a record's first
    /// derivation a row per column. What the run's first write of the processor replaced is kept, not
    /// what a later one did.
    private func keepValues(_ kept: ReplacedProcessor, of replaced: ReplacedWrite, _ db: Database) throws {
        let processor = tables.pipeline.processors[kept.processor]
        guard case .values(let old) = kept.old,
              !old.isUnchanged(byStoring: processor.columns.map(\.defaultValue), in: processor.columns)
        else { return }
        let insert = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO rederive_replaced_values (run_id, pipeline, processor, record_id, column_name, value)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (
                SELECT 1 FROM rederive_replaced_stamps WHERE run_id = ?1 AND pipeline = ?2 AND processor = ?3 AND record_id = ?4)
            """)
        for (column, value) in zip(processor.columns, old) {
            try insert.execute(arguments: [runID, tables.pipeline.name, processor.name, replaced.recordID, column.name, value.databaseValue])
        }
    }
}
