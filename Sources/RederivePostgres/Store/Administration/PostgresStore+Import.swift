#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec
import RederiveSQL
import Synchronization

/// Writing payloads under their keys, as `rederive import` and `generate` do.
extension PostgresStore: PayloadImporting {
    /// Writes the items `next` returns in one transaction, with statements of the default size:
    /// ``importPayloads(into:statementItems:statementBytes:from:)``.
    public func importPayloads(into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?) async throws -> ImportCounts {
        try await importPayloads(into: pipeline, statementItems: 500, statementBytes: 8 << 20, from: next)
    }

    /// Writes the items `next` returns, until it returns nil, in one transaction: new keys are
    /// inserted, changed payloads replaced (the trigger renews their generations), and payloads that
    /// are stored already, or stored compressed otherwise (see `ImportItem/content`), left alone.
    ///
    /// The payloads go to the server a statement at a time, each of at most `statementItems` payloads
    /// and about `statementBytes` bytes, so that an import of any size holds one statement's payloads
    /// in memory and no statement nears the server's 1 GB limit on a message. `next` may block until its
    /// next payload is ready; it is called off the concurrency pool. When it throws, or a statement
    /// fails, the transaction rolls back and nothing of the import is stored.
    public func importPayloads(
        into pipeline: Pipeline, statementItems: Int = 500, statementBytes: Int = 8 << 20,
        from next: @escaping @Sendable () throws -> ImportItem?
    ) async throws -> ImportCounts {
        let tables = PostgresPipelineTables(pipeline)
        guard let key = tables.key else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to import files under")
        }
        let column: String? = if case .text(let type) = try await payloadColumn(tables) { type } else { nil }
        let logger = self.logger
        // What `next` throws reaches the caller as it was thrown, not as a database error.
        let sourceFailure = Mutex<(any Error)?>(nil)
        let counts: ImportCounts
        do {
            counts = try await transaction("import into") { connection in
                try await writeStatements(on: connection)
            }
        } catch {
            throw sourceFailure.withLock { $0 } ?? error
        }
        // The payload trigger counted each new record on its own: folded now, status reads a few rows.
        if counts.inserted > 0 { await foldCounts(within: .seconds(60)) }
        return counts

        @Sendable func writeStatements(on connection: PostgresConnection) async throws -> ImportCounts {
            var outcome = ImportCounts()
            while true {
                var items: [ImportItem]
                do {
                    items = try await Self.takeStatement(from: next, items: max(1, statementItems), bytes: statementBytes)
                } catch {
                    sourceFailure.withLock { $0 = error }
                    throw error
                }
                guard !items.isEmpty else { return outcome }
                if column == nil, items.contains(where: { $0.content != nil }) {
                    try await Self.keepStoredCompressions(of: &items, in: tables, key: key, on: connection, logger: logger)
                }
                let statement = try Self.importStatement(items, into: pipeline, tables: tables, key: key, textColumn: column)
                let rows = try await connection.run(statement, logger: logger).collect { try $0.decode((Int64, Int64, Int64).self) }
                if let (inserted, replaced, unchanged) = rows.first {
                    outcome.inserted += Int(inserted)
                    outcome.replaced += Int(replaced)
                    outcome.unchanged += Int(unchanged)
                }
            }
        }
    }

    /// The next payloads for one statement, taken on a thread of their own since `next` may block:
    /// up to `items` of them, stopping after the one that reaches `bytes`; empty once `next` is done.
    private static func takeStatement(
        from next: @escaping @Sendable () throws -> ImportItem?, items: Int, bytes: Int
    ) async throws -> [ImportItem] {
        try await BlockingWork.run {
            var taken: [ImportItem] = []
            var size = 0
            while taken.count < items, size < bytes, let item = try next() {
                taken.append(item)
                size += item.payload.count
            }
            return taken
        }
    }

    /// Gives items whose stored payload holds the same content, compressed otherwise, the stored bytes,
    /// so that the write leaves them alone. Only payloads whose length differs are fetched: the same
    /// content compressed otherwise is almost never of the same length, and an identical payload
    /// always is.
    private static func keepStoredCompressions(
        of items: inout [ImportItem], in tables: PostgresPipelineTables, key: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var statement = SQLStatement()
        let keys = statement.bind(items.map(\.key))
        let lengths = statement.bind(items.map { Int64($0.payload.count) })
        statement.sql = """
            SELECT t.\(key)::text, t.\(tables.payload) FROM \(tables.table) t
            JOIN unnest(\(keys), \(lengths)) AS i(key, length) ON t.\(key) = i.key
            WHERE octet_length(t.\(tables.payload)) <> i.length
            """
        let rows = try await connection.run(statement, logger: logger).collect { try $0.decode((String, ByteBuffer?).self) }
        guard !rows.isEmpty else { return }
        let stored = Dictionary(rows.compactMap { key, payload in payload.map { (key, [UInt8](buffer: $0)) } }, uniquingKeysWith: { first, _ in first })
        for index in items.indices {
            if let bytes = stored[items[index].key], items[index].isHeld(by: bytes) {
                items[index].payload = bytes
            }
        }
    }

    /// One statement that writes `items` and returns how many it inserted, replaced and left alone.
    private static func importStatement(
        _ items: [ImportItem], into pipeline: Pipeline, tables: PostgresPipelineTables, key: String, textColumn column: String?
    ) throws -> SQLStatement {
        // Later files win when one key comes twice, as when they are written one after another; one
        // statement may write a row only once.
        var latest: [String: [UInt8]] = [:]
        var order: [String] = []
        for item in items {
            if latest.updateValue(item.payload, forKey: item.key) == nil { order.append(item.key) }
        }
        var statement = SQLStatement()
        let keys = statement.bind(order)
        let incoming: String
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
        return statement
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
