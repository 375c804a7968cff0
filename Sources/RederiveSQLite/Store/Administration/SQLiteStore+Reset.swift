import GRDB
import Rederive
import RederiveSQL

extension SQLiteStore {
    /// Clears a pipeline's derived state (`StoreAdministration/reset(_:)`): stamps, failures and kept
    /// replaced values go, every derived column goes back to its declared default; payloads stay.
    /// Refused while a run is in progress (`RollbackRules`).
    ///
    /// ```swift
    /// let cleared = try await store.reset(recipes)   // number of records whose state was cleared
    /// ```
    public func reset(_ pipeline: Pipeline) async throws -> Int {
        try await prepare(pipeline)
        let tables = PipelineTables(pipeline)
        let assignments = pipeline.outputColumns
            .map { "\(SQL.identifier($0.name)) = \(SQL.literal($0.defaultValue))" }
            .joined(separator: ", ")
        return try await write { db in
            try RollbackRules.requireNoRunInProgress(try Self.runsInProgress(db), before: "reset pipeline \"\(pipeline.name)\"")
            for table in [
                "rederive_stamps", "rederive_failures", "rederive_replaced_stamps", "rederive_replaced_values", "rederive_projections",
            ] {
                try db.execute(sql: "DELETE FROM \(table) WHERE pipeline = ?", arguments: [pipeline.name])
            }
            try db.execute(sql: "UPDATE \(tables.destination) SET \(assignments)")
            return try Self.recordCount(db, tables)
        }
    }
}
