#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL

/// The columns of a pending query that say what state a record is in, on `r` (rederive_records) and
/// `s` (its stamps, joined by ``join``): one stale flag per processor of the plan, then,
/// for a plan with dependent processors, the kind of each current failure they must know of and the
/// inputs digest of each dependent's current stamp.
struct PendingColumns {
    let plan: RunPlan
    /// Every column, in order, after the record's id and generation.
    let expressions: [String]
    /// Whether any processor of the plan is stale for the record.
    let anyStale: String
    /// The join that gives `s`, the record's stamps in one row, to follow `FROM rederive_records r`.
    let join: String
    /// What the columns of a row hold.
    private let layout: PendingRowLayout

    init(_ plan: RunPlan, _ statement: inout SQLStatement) {
        self.plan = plan
        // Dependents decide per record whether to run: they need the failures of what they read and
        // their own, and the input digest their current stamps keep.
        let dependents = plan.dependents
        let failureColumns = plan.failuresDependentsNeed
        let condition = PostgresStore.staleCondition(plan, &statement, digests: dependents, failureKinds: failureColumns)
        anyStale = condition.any
        join = condition.join
        var expressions = condition.flags
        expressions += failureColumns.map(PostgresStore.failureKind)
        expressions += dependents.map { "s.digest\($0)" }
        self.expressions = expressions
        layout = PendingRowLayout(plan, staleFlags: plan.selection, failureColumns: failureColumns, digestColumns: dependents)
    }

    /// What a row of record id, generation and ``expressions`` says of its record.
    func pick(_ row: PostgresRow) throws -> PendingPick {
        let cells = row.makeRandomAccess()
        return try layout.pick(
            recordID: cells[0].decode(Int64.self), generation: cells[1].decode(Int64.self),
            flag: { try cells[$0].decode(Bool.self) }, text: { try cells[$0].decode(String?.self) },
            integer: { try cells[$0].decode(Int64?.self) }
        )
    }
}

/// Reads picked records for derivation on one connection: the payload only of records for which a
/// processor that reads it may run and whose stored projection does not serve instead
/// (``PostgresProjectionReader``), and the stored values the plan's dependents read.
///
/// The caller keeps what is read consistent with the generations picked: one snapshot for a preview,
/// the records' row locks for a claim.
struct PostgresPendingReader {
    let plan: RunPlan
    let tables: PostgresPipelineTables
    let payloadColumn: PayloadColumn
    let statements: PreparedStatements

    /// The picked records, in order; the batch ends once the payloads read hold `byteLimit` bytes, and
    /// always holds a record when one is picked.
    func read(
        _ picks: [PendingPick], byteLimit: Int, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [PendingRecord] {
        // A current projection serves the payload processors: its record's payload is not read at all.
        let projections = try await PostgresProjectionReader(plan, statements: statements)?
            .read(picks.filter(\.readsPayload), connection, logger) ?? [:]
        let reads = picks.map { $0.readsPayload && projections[$0.recordID]?.current == nil }
        let payloads = try await payloads(of: zip(picks, reads).filter(\.1).map(\.0.recordID), byteLimit: byteLimit, connection, logger)
        var kept: [(pick: PendingPick, readsPayload: Bool)] = []
        var bytes = 0
        for (pick, readsPayload) in zip(picks, reads) where kept.isEmpty || bytes < byteLimit {
            if readsPayload {
                // Not read: past the byte limit.
                guard let payload = payloads[pick.recordID] else { break }
                bytes += payload?.count ?? 0
            }
            kept.append((pick, readsPayload))
        }
        let wanted = kept.map(\.pick).filter { plan.needsStoredValues(stale: $0.staleProcessors) }
        let stored = wanted.isEmpty ? [:] : try await storedValues(of: plan.dependencyColumns, wanted.map(\.recordID), connection, logger)
        return kept.map { pick, readsPayload in
            let projection = projections[pick.recordID]
            let input = PendingInput(
                projection: projection?.current, readsPayload: readsPayload, payload: payloads[pick.recordID] ?? nil,
                fallback: projection?.fallback
            )
            return PendingRecord(
                recordID: pick.recordID, generation: pick.generation, staleProcessors: pick.staleProcessors, input: input,
                dependencies: plan.dependencyState(
                    stale: pick.staleProcessors, storedValues: stored[pick.recordID] ?? [:],
                    consumedDigests: pick.consumedDigests, failures: pick.failures, storageRules: PostgresStorage.rules
                )
            )
        }
    }

    /// The payloads of `ids` as bytes, by id (nil for a `NULL` payload): in id order, each whose
    /// predecessors hold fewer than `byteLimit` bytes, so the first always and none that would be
    /// given back for want of room. The sizes come from the stored values' headers; only the payloads
    /// returned are read.
    private func payloads(
        of ids: [Int64], byteLimit: Int, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64: [UInt8]?] {
        guard !ids.isEmpty else { return [:] }
        var statement = SQLStatement()
        let size = "coalesce(\(payloadColumn.size(tables.payload)), 0)"
        statement.sql = """
            SELECT t.\(tables.id), \(payloadColumn.reader(tables.payload)) FROM (
                SELECT t.\(tables.id), t.\(tables.payload), sum(\(size)) OVER (ORDER BY t.\(tables.id)) - \(size) AS before
                FROM \(tables.table) t WHERE t.\(tables.id) = ANY(\(statement.bind(ids)))
            ) t WHERE t.before < \(statement.bind(Int64(byteLimit)))
            """
        var payloads: [Int64: [UInt8]?] = [:]
        for row in try await statements.run(statement, on: connection, logger: logger) {
            let (id, payload) = try row.decode((Int64, ByteBuffer?).self)
            payloads[id] = payload.map { Array($0.readableBytesView) }
        }
        return payloads
    }

    /// Per record, the stored values of `processors`, each in its columns' order; none for a record
    /// without a row of derived values.
    private func storedValues(
        of processors: [Int], _ ids: [Int64], _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64: [Int: [DerivedValue]]] {
        guard !ids.isEmpty else { return [:] }
        let descriptors = processors.map { plan.pipeline.processors[$0] }
        let columns = descriptors.flatMap(\.columns).map { PostgresSQL.identifier($0.name) }
        var statement = SQLStatement()
        statement.sql = """
            SELECT \(tables.destinationID), \(columns.joined(separator: ", ")) FROM \(tables.destination)
            WHERE \(tables.destinationID) = ANY(\(statement.bind(ids)))
            """
        var stored: [Int64: [Int: [DerivedValue]]] = [:]
        for row in try await statements.run(statement, on: connection, logger: logger) {
            let cells = row.makeRandomAccess()
            var values: [Int: [DerivedValue]] = [:]
            var offset = 1
            for (index, descriptor) in zip(processors, descriptors) {
                values[index] = try PostgresStore.values(cells, from: offset, descriptor.columns)
                offset += descriptor.columns.count
            }
            stored[try cells[0].decode(Int64.self)] = values
        }
        return stored
    }
}
#endif
