#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec

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
        let incoming: String
        let column: String? = if case .text(let type) = try await payloadColumn(tables) { type } else { nil }
        if let column {
            // A text or JSON column holds the JSON itself: compressed payloads are inflated first.
            let texts = try order.map { key in try Self.text(of: latest[key] ?? [], key: key, in: pipeline, type: column) }
            incoming = "unnest(\(keys), \(statement.bind(texts))::\(column)[]) AS i(key, payload)"
        } else {
            incoming = "unnest(\(keys), \(statement.bind(order.map { ByteBuffer(bytes: latest[$0] ?? []) }))) AS i(key, payload)"
        }
        statement.sql = """
            WITH incoming AS (SELECT * FROM \(incoming)),
            old AS (SELECT t.\(key) AS key, t.\(tables.payload)\(column == "json" ? "::text" : "") = i.payload\(column == "json" ? "::text" : "") AS same
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

    /// A payload as the text a text or JSON column stores: inflated when compressed, and UTF-8.
    private static func text(of payload: [UInt8], key: String, in pipeline: Pipeline, type: String) throws -> String {
        let plain: [UInt8]
        do {
            plain = try PayloadCodec().decode(payload)
        } catch {
            throw RederiveError(.invalidArgument, "the payload of \"\(key)\" cannot be stored in \(pipeline.table).\(pipeline.payloadColumn) (\(type)): \(error)")
        }
        guard let text = String(validating: plain, as: UTF8.self), !text.contains("\u{0}") else {
            throw RederiveError(.invalidArgument, "the payload of \"\(key)\" is not UTF-8 text, which \(pipeline.table).\(pipeline.payloadColumn) (\(type)) holds")
        }
        return text
    }
}
#endif
