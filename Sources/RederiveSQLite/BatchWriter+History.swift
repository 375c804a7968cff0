import GRDB
import Rederive

/// Keeping what a commit replaces, so that the run can be rolled back.
extension BatchWriter {
    /// Records, for each derived processor whose own columns change, the stored values and the stamp
    /// about to be replaced. Called after the values are written and before the stamps are.
    ///
    /// - Parameters:
    ///   - columns: The derived processors' columns, in processor order, as written.
    ///   - stored: The row of values that was stored before the write, nil when there was none.
    func keepReplaced(
        _ processors: [ProcessorDescriptor], _ values: [DatabaseValue], stored: Row?, _ result: RecordResult, _ db: Database
    ) throws {
        let before = stored.map { Array($0.databaseValues) }
        var offset = 0
        for processor in processors {
            let range = offset..<(offset + processor.columns.count)
            offset = range.upperBound
            let old = before.map { Array($0[range]) } ?? processor.columns.map(\.defaultValue.databaseValue)
            guard before == nil || old != Array(values[range]) else { continue }
            try keepStamp(processor, result, db)
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO rederive_replaced_values (run_id, processor, record_id, column_name, value)
                VALUES (?, ?, ?, ?, ?)
                """)
            for (column, value) in zip(processor.columns, old) {
                try insert.execute(arguments: [runID, processor.name, result.recordID, column.name, value])
            }
        }
    }

    private func keepStamp(_ processor: ProcessorDescriptor, _ result: RecordResult, _ db: Database) throws {
        let keep = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO rederive_replaced_stamps
                (run_id, processor, record_id, source, derived_generation, had_stamp,
                 version, generation, payload_digest, current, stamp_run_id, derived_at)
            SELECT ?, ?, ?, ?, ?, s.processor IS NOT NULL,
                s.version, s.generation, s.payload_digest, s.current, s.run_id, s.derived_at
            FROM (SELECT 1) LEFT JOIN rederive_stamps s ON s.processor = ? AND s.record_id = ?
            """)
        try keep.execute(arguments: [
            runID, processor.name, result.recordID, tables.pipeline.table, result.generation,
            processor.name, result.recordID,
        ])
    }
}
