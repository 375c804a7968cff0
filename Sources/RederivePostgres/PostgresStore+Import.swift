#if PostgreSQL
import PostgresNIO
import Rederive

/// Writing payloads under their keys, as `rederive import` and `generate` do.
extension PostgresStore {
    /// What an import wrote.
    public struct ImportOutcome: Sendable, Hashable {
        public var inserted = 0
        public var replaced = 0
        public var unchanged = 0
    }

    /// Inserts or replaces payloads by key, in one transaction; a payload equal to the stored one is
    /// left alone, so its record stays up to date. The trigger renews the others' generations.
    public func importPayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportOutcome {
        let tables = PostgresPipelineTables(pipeline)
        guard let key = tables.key else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to import files under")
        }
        guard !payloads.isEmpty else { return ImportOutcome() }
        let logger = self.logger
        // Later files win when one key comes twice, as when they are written one after another.
        var latest: [String: [UInt8]] = [:]
        var order: [String] = []
        for (name, payload) in payloads {
            if latest.updateValue(payload, forKey: name) == nil { order.append(name) }
        }
        var statement = SQLStatement()
        let keys = statement.bind(order)
        let bytes = statement.bind(order.map { ByteBuffer(bytes: latest[$0] ?? []) })
        statement.sql = """
            WITH incoming AS (SELECT * FROM unnest(\(keys), \(bytes)) AS i(key, payload)),
            old AS (SELECT t.\(key) AS key, t.\(tables.payload) = i.payload AS same
                FROM \(tables.table) t JOIN incoming i ON t.\(key) = i.key FOR UPDATE OF t),
            written AS (
                INSERT INTO \(tables.table) (\(key), \(tables.payload))
                SELECT i.key, i.payload FROM incoming i LEFT JOIN old o ON o.key = i.key WHERE o.same IS NOT TRUE
                ON CONFLICT (\(key)) DO UPDATE SET \(tables.payload) = excluded.\(tables.payload)
                RETURNING 1)
            SELECT (SELECT count(*) FROM incoming) - (SELECT count(*) FROM old),
                (SELECT count(*) FROM old WHERE NOT same), (SELECT count(*) FROM old WHERE same)
            """
        return try await transaction("import into") { connection in
            let rows = try await connection.run(statement, logger: logger).collect { try $0.decode((Int64, Int64, Int64).self) }
            guard let (inserted, replaced, unchanged) = rows.first else { return ImportOutcome() }
            return ImportOutcome(inserted: Int(inserted), replaced: Int(replaced), unchanged: Int(unchanged))
        }
    }
}
#endif
