#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL

/// Storing a batch of results in one transaction, fenced by the lease and each record's generation.
extension PostgresStore {
    /// Commits in one transaction, fenced by the lease (still there, and this lease's claims) and each
    /// record's payload generation.
    ///
    /// A commit that gets no answer within its deadline, twice the lease and at least 10 s (the link to the server was cut, say),
    /// is given up on, as is one whose connection fails. Before its COMMIT was sent it was rolled
    /// back, and it throws a transient outage error: the run tries it again when the database is
    /// back. After, what became of it only the server knows, so
    /// it counts neither as committed nor as failed. The lease is given up with it, and the commit
    /// throws `leaseLost`: the run takes a new lease and derives on, the records the given-up commit
    /// did not store stay claimed by the old lease and are taken over once it expires, and the
    /// records' stamps say what is still stale.
    public func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> CommitOutcome {
        guard !results.isEmpty else { return .empty }
        let batch = try CommitBatch(results, of: plan.pipeline)
        if let lease, isAbandoned(lease) { throw leaseLost(lease) }
        let tables = PostgresPipelineTables(plan.pipeline)
        let logger = self.logger
        let deadline = Self.commitDeadline(lease)
        let committing = CommitSent()
        do {
            return try await watchedTransaction(
                "commit to", within: deadline, cancelled: .waitAtMost(Self.cancelledStatementLimit), committing: committing
            ) { connection in
                if let lease {
                    // The lease's row, locked for key share: a commit waits for no heartbeat (which
                    // updates other columns), and no one reaps the lease until the commit has ended.
                    guard try await Self.holdsForCommit(lease, connection, logger) else { throw self.leaseLost(lease) }
                }
                // The records' rows of the pipeline's table before their bookkeeping rows, in the order
                // an app's DELETE takes them: the two wait for each other, never deadlock.
                try await self.hold(batch, tables, connection, logger)
                // Accepting marks the accepted records committed by the run and frees this lease's claims.
                let accepted = try await self.accept(batch, tables, runID: runID, lease: lease, connection, logger)
                let writer = PostgresBatchWriter(tables: tables, runID: runID, statements: self.statements)
                let stored = try await writer.commitState(of: batch, accepted: accepted, connection, logger)
                let commit = batch.plan(stored: stored, rules: PostgresStorage.rules)
                for step in commit.steps {
                    try await writer.write(step, connection, logger)
                }
                try await self.count(commit.counts, runID: runID, lease: lease, connection, logger)
                return commit.outcome
            }
        } catch let fault as ConnectionFault {
            // Lost before COMMIT was sent: rolled back, nothing of it stored. Tried again under the same
            // lease once the database is back; only a commit lost after COMMIT has an unknown outcome.
            guard committing.wasSent else { throw fault.outage }
            guard let lease else { throw fault.error }
            abandon(lease)
            logger.warning("a commit's outcome is unknown; giving up its lease and deriving on with a new one", metadata: [
                "error": "\(fault.error)", "records": "\(batch.count)",
            ])
            throw RederiveError(
                .leaseLost,
                "\(fault.error); what became of that commit is unknown, so the lease of \(lease.worker.description) is given up "
                    + "and the records it did not store are taken over"
            )
        }
    }

    /// The longest a commit may wait for the server before it is given up: twice the lease, 10 s at
    /// least, so that a slow commit on a live link is rarely given up, while a commit cut off from the
    /// server ends within a bounded time.
    static func commitDeadline(_ lease: WorkerLease?) -> Duration {
        max((lease?.duration ?? .seconds(15)) * 2, .seconds(10))
    }

    /// Adds a commit's counts to the run: to the lease's own share of it, so that concurrent workers
    /// never wait for each other's commits on one row; without a lease, to the run's row. A share also
    /// keeps when it was last committed to and its recent rate: the records of each commit over the
    /// time since the one before, averaged with a weight of 30 % for the newest.
    private func count(
        _ counts: RunCounts, runID: Int64, lease: WorkerLease?, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        var statement = SQLStatement()
        let values = [counts.changed, counts.unchanged, counts.failed, counts.skipped].map { statement.bind(Int64($0)) }
        if let lease {
            statement.sql = """
                INSERT INTO rederive_run_shares AS s (run_id, token, derived, unchanged, failed, skipped, committed_at)
                VALUES (\(statement.bind(runID)), \(statement.bind(lease.token)), \(values.joined(separator: ", ")), clock_timestamp())
                ON CONFLICT (run_id, token) DO UPDATE SET derived = s.derived + excluded.derived,
                    unchanged = s.unchanged + excluded.unchanged, failed = s.failed + excluded.failed,
                    skipped = s.skipped + excluded.skipped, committed_at = excluded.committed_at,
                    recent_rate = CASE WHEN s.committed_at IS NULL OR excluded.committed_at <= s.committed_at THEN s.recent_rate
                        ELSE (excluded.derived + excluded.unchanged + excluded.failed + excluded.skipped)
                            / extract(epoch FROM excluded.committed_at - s.committed_at)::double precision
                            * CASE WHEN s.recent_rate IS NULL THEN 1 ELSE 0.3 END
                            + coalesce(s.recent_rate, 0) * 0.7 END
                """
        } else {
            statement.sql = """
                UPDATE rederive_runs SET derived = derived + \(values[0]), unchanged = unchanged + \(values[1]),
                    failed = failed + \(values[2]), skipped = skipped + \(values[3])
                WHERE id = \(statement.bind(runID))
                """
        }
        try await statements.run(statement, on: connection, logger: logger)
    }

    /// Locks the batch's rows of the pipeline's table, those still at the generation the batch read,
    /// through the pipeline's holder function: an app's `DELETE` of one of them then waits for this
    /// commit, or this commit for it, and never each for the other.
    private func hold(_ batch: CommitBatch, _ tables: PostgresPipelineTables, _ connection: PostgresConnection, _ logger: Logger) async throws {
        var statement = SQLStatement()
        statement.sql = """
            SELECT \(PostgresSQL.identifier(tables.holderName))(\(statement.bind(batch.recordIDs)), \(statement.bind(batch.generations)))
            """
        try await statements.run(statement, on: connection, logger: logger)
    }

    /// The records whose results may be stored: still claimed by this lease (or, without a lease,
    /// still there) at the generation they were read at. Frees this lease's claims on all of them,
    /// marking those accepted as committed by the run.
    private func accept(
        _ results: CommitBatch, _ tables: PostgresPipelineTables, runID: Int64, lease: WorkerLease?,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Set<Int64> {
        let ids = results.recordIDs
        var statement = SQLStatement()
        let source = statement.bind(tables.pipeline.table)
        let batch = "unnest(\(statement.bind(ids)), \(statement.bind(results.generations))) AS c(id, generation)"
        if let lease {
            let token = statement.bind(lease.token)
            statement.sql = """
                UPDATE rederive_records r SET claimed_by = NULL, committed_run = \(statement.bind(runID)) FROM \(batch)
                WHERE r.source = \(source) AND r.record_id = c.id AND r.claimed_by = \(token) AND r.generation = c.generation
                RETURNING r.record_id
                """
        } else {
            statement.sql = """
                SELECT r.record_id FROM rederive_records r JOIN \(batch) ON r.record_id = c.id AND r.generation = c.generation
                WHERE r.source = \(source) FOR UPDATE OF r
                """
        }
        let accepted = Set(try await statements.run(statement, on: connection, logger: logger).map { try $0.decode(Int64.self) })
        if let lease, accepted.count < results.count {
            // A payload replaced meanwhile: the record stays stale, and free for the next claim.
            var release = SQLStatement()
            release.sql = """
                UPDATE rederive_records SET claimed_by = NULL WHERE source = \(release.bind(tables.pipeline.table))
                AND record_id = ANY(\(release.bind(ids))) AND claimed_by = \(release.bind(lease.token))
                """
            try await connection.run(release, logger: logger)
        }
        return accepted
    }
}

/// Writes one batch's plan: values that changed, a stamp row per record and processor, failures, projections.
struct PostgresBatchWriter {
    let tables: PostgresPipelineTables
    let runID: Int64
    let statements: PreparedStatements

    /// Writes one step of a plan; each record appears at most once in it, as one statement's
    /// `ON CONFLICT DO UPDATE` requires.
    func write(_ step: CommitWrites, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let processors = tables.pipeline.processors
        for (shape, rows) in step.valuesByProcessors {
            try await writeValues(shape, rows.map { ($0.recordID, $0.values) }, connection, logger)
        }
        if !step.replaced.isEmpty {
            let changed = Set(step.replaced.flatMap { record in record.processors.map { processors[$0.processor].name } })
            let stamps = try await stampsNow(of: step.replaced.map(\.recordID), changed.sorted(), connection, logger)
            try await keepReplaced(step.replaced.map { replaced in
                (replaced.recordID, replaced.generation, ReplacedValues(replaced, tables.pipeline).json(stamps: stamps[replaced.recordID] ?? [:]))
            }, connection, logger)
        }
        try await writeStamps(step.stamps.flatMap(stamps), connection, logger)
        try await clearFailures(step.clearedFailures.map { ($0.recordID, processors[$0.processor].name) }, connection, logger)
        try await writeFailures(step.failures, connection, logger)
        try await PostgresProjectionWriter(pipeline: tables.pipeline, statements: statements).write(step.projections, connection, logger)
    }

    /// The stamp rows of `processors` that `records` hold now, by record and processor name: read
    /// before ``writeStamps(_:_:_:)`` replaces them, for ``keepReplaced(_:_:_:)``.
    private func stampsNow(
        of records: [Int64], _ processors: [String], _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64: [String: PostgresStamp]] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT record_id, processor, current, version, generation, payload_digest, run_id, inputs_digest, input_versions
            FROM rederive_stamps WHERE pipeline = \(statement.bind(tables.pipeline.name)) AND record_id = ANY(\(statement.bind(records)))
            AND processor = ANY(\(statement.bind(processors)))
            """
        var stamps: [Int64: [String: PostgresStamp]] = [:]
        for row in try await statements.run(statement, on: connection, logger: logger) {
            let (id, processor, current, version, generation, digest, run, inputsDigest, inputVersions) = try row.decode(
                (Int64, String, Bool, Int32, Int64, Int64, Int64, Int64?, String?).self
            )
            stamps[id, default: [:]][processor] = PostgresStamp(
                current: current, version: Int(version), generation: generation, digest: digest, run: run,
                inputsDigest: inputsDigest, inputVersions: inputVersions
            )
        }
        return stamps
    }

    /// Keeps, for rollback, what the batch's changed records held before, one row per record: the
    /// values and, where the processor had one, its stamp (``ReplacedValues/json(stamps:)``). A
    /// record the run stored before keeps what its first write replaced, with the generation of this
    /// one (`RollbackPlan`).
    private func keepReplaced(_ replaced: [(id: Int64, generation: Int64, kept: String)], _ connection: PostgresConnection, _ logger: Logger) async throws {
        var statement = SQLStatement()
        statement.sql = """
            INSERT INTO rederive_replaced (run_id, pipeline, record_id, source, generation, processors)
            SELECT \(statement.bind(runID)), \(statement.bind(tables.pipeline.name)), u.id, \(statement.bind(tables.pipeline.table)),
                u.generation, u.kept::jsonb
            FROM unnest(\(statement.bind(replaced.map(\.id))), \(statement.bind(replaced.map(\.generation))),
                \(statement.bind(replaced.map(\.kept)))) AS u(id, generation, kept)
            ON CONFLICT (run_id, pipeline, record_id) DO UPDATE
                SET processors = excluded.processors || rederive_replaced.processors, generation = excluded.generation
            """
        try await statements.run(statement, on: connection, logger: logger)
    }

    /// A plan's stamp of one record, as a row per processor: current, by this run. A dependent's also
    /// keeps what it derived from: its inputs' digest (`InputDigest`) and versions, as in
    /// `"floor_area@2,section_labels@1"`.
    private func stamps(_ write: StampWrite) -> [StampRow] {
        write.processors.map { index in
            let processor = tables.pipeline.processors[index]
            return StampRow(recordID: write.recordID, processor: processor.name, stamp: PostgresStamp(
                current: true, version: processor.version, generation: write.generation, digest: write.payloadDigest, run: runID,
                inputsDigest: write.inputDigests[index], inputVersions: tables.pipeline.inputVersions(of: index)
            ))
        }
    }

    /// What the plan needs of the accepted records: each one's generation and, for the processors
    /// that derived any record of the batch, the values its columns hold now (nil without a row of
    /// derived values). A record not accepted (replaced, deleted, or no longer this lease's) has no
    /// state, so the plan skips it.
    func commitState(
        of batch: CommitBatch, accepted: Set<Int64>, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Int64: StoredCommitState] {
        guard !accepted.isEmpty else { return [:] }
        let pipeline = tables.pipeline
        let processors = batch.derivedProcessors
        let columns = processors.flatMap { pipeline.processors[$0].columns }
        var statement = SQLStatement()
        statement.sql = """
            SELECT r.record_id, r.generation, d.\(tables.destinationID) IS NOT NULL\(columns.map { ", d.\(PostgresSQL.identifier($0.name))" }.joined())
            FROM rederive_records r LEFT JOIN \(tables.destination) d ON d.\(tables.destinationID) = r.record_id
            WHERE r.source = \(statement.bind(pipeline.table)) AND r.record_id = ANY(\(statement.bind(Array(accepted))))
            """
        var stored: [Int64: StoredCommitState] = [:]
        for row in try await statements.run(statement, on: connection, logger: logger) {
            let cells = row.makeRandomAccess()
            var values: [Int: [DerivedValue]]? = nil
            if try cells[2].decode(Bool.self) {
                var offset = 3
                values = [:]
                for index in processors {
                    let processor = pipeline.processors[index]
                    values?[index] = try PostgresStore.values(cells, from: offset, processor.columns)
                    offset += processor.columns.count
                }
            }
            stored[try cells[0].decode(Int64.self)] = StoredCommitState(generation: try cells[1].decode(Int64.self), values: values)
        }
        return stored
    }

    /// A stored value as a derived value.
    static func value(_ cell: PostgresCell, _ type: ColumnType) throws -> DerivedValue {
        switch type {
        case .integer: try cell.decode(Int64?.self).map(DerivedValue.integer) ?? .null
        case .real: try cell.decode(Double?.self).map(DerivedValue.real) ?? .null
        case .text: try cell.decode(String?.self).map(DerivedValue.text) ?? .null
        case .blob: try cell.decode(ByteBuffer?.self).map { .blob(Array($0.readableBytesView)) } ?? .null
        }
    }

    /// One statement for all records that derived the same processors.
    func writeValues(_ shape: [Int], _ rows: [(Int64, [DerivedValue])], _ connection: PostgresConnection, _ logger: Logger) async throws {
        let columns = shape.flatMap { tables.pipeline.processors[$0].columns }
        let names = columns.map { PostgresSQL.identifier($0.name) }
        // A statement takes at most 65,535 parameters.
        let chunk = max(1, 60_000 / (columns.count + 1))
        for start in stride(from: 0, to: rows.count, by: chunk) {
            var statement = SQLStatement()
            let tuples = rows[start..<min(rows.count, start + chunk)].map { id, values in
                "(" + ([statement.bind(id)] + zip(values, columns).map { statement.bind($0, column: $1.type) }).joined(separator: ", ") + ")"
            }
            switch tables.pipeline.layout {
            case .companion:
                statement.sql = """
                    INSERT INTO \(tables.destination) (id, \(names.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))
                    ON CONFLICT (id) DO UPDATE SET \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                    """
            case .inline:
                statement.sql = """
                    UPDATE \(tables.table) AS t SET \(names.map { "\($0) = v.\($0)" }.joined(separator: ", "))
                    FROM (VALUES \(tuples.joined(separator: ", "))) AS v(id, \(names.joined(separator: ", ")))
                    WHERE t.\(tables.id) = v.id
                    """
            }
            try await connection.run(statement, logger: logger)
        }
    }

    /// Writes stamp rows, replacing what each held: one statement, each row a HOT update where it was there.
    func writeStamps(_ rows: [StampRow], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !rows.isEmpty else { return }
        var statement = SQLStatement()
        // Arrays carry no NULL here: an absent input digest or version travels as the empty string.
        statement.sql = """
            INSERT INTO rederive_stamps AS s (pipeline, processor, record_id, source, version, generation, payload_digest,
                current, run_id, inputs_digest, input_versions)
            SELECT \(statement.bind(tables.pipeline.name)), u.processor, u.id, \(statement.bind(tables.pipeline.table)), u.version,
                u.generation, u.digest, u.current, u.run, nullif(u.inputs_digest, '')::bigint, nullif(u.input_versions, '')
            FROM unnest(
                \(statement.bind(rows.map(\.processor))), \(statement.bind(rows.map(\.recordID))),
                \(statement.bind(rows.map { Int64($0.stamp.version) })), \(statement.bind(rows.map(\.stamp.generation))),
                \(statement.bind(rows.map(\.stamp.digest))), \(statement.bind(rows.map(\.stamp.current))),
                \(statement.bind(rows.map(\.stamp.run))), \(statement.bind(rows.map { $0.stamp.inputsDigest.map(String.init) ?? "" })),
                \(statement.bind(rows.map { $0.stamp.inputVersions ?? "" }))
            ) AS u(processor, id, version, generation, digest, current, run, inputs_digest, input_versions)
            ON CONFLICT (pipeline, record_id, processor) DO UPDATE SET version = excluded.version,
                generation = excluded.generation, payload_digest = excluded.payload_digest, current = excluded.current,
                run_id = excluded.run_id, inputs_digest = excluded.inputs_digest, input_versions = excluded.input_versions
            """
        try await statements.run(statement, on: connection, logger: logger)
    }

    private func clearFailures(_ cleared: [(Int64, String)], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !cleared.isEmpty else { return }
        var statement = SQLStatement()
        statement.sql = """
            DELETE FROM rederive_failures f USING unnest(\(statement.bind(cleared.map(\.0))), \(statement.bind(cleared.map(\.1)))) AS u(id, processor)
            WHERE f.pipeline = \(statement.bind(tables.pipeline.name)) AND f.record_id = u.id AND f.processor = u.processor
            """
        try await statements.run(statement, on: connection, logger: logger)
    }

    private func writeFailures(_ written: [FailureWrite], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !written.isEmpty else { return }
        let failures = written.map { (recordID: $0.recordID, generation: $0.generation, processor: tables.pipeline.processors[$0.processor], kind: $0.kind, message: $0.message) }
        var statement = SQLStatement()
        let pipeline = statement.bind(tables.pipeline.name)
        let source = statement.bind(tables.pipeline.table)
        let run = statement.bind(runID)
        statement.sql = """
            INSERT INTO rederive_failures
                (pipeline, processor, record_id, source, version, generation, current, kind, message, run_id, failed_at)
            SELECT \(pipeline), u.processor, u.id, \(source), u.version, u.generation, true, u.kind, u.message, \(run), now()
            FROM unnest(
                \(statement.bind(failures.map(\.processor.name))), \(statement.bind(failures.map(\.recordID))),
                \(statement.bind(failures.map { Int64($0.processor.version) })), \(statement.bind(failures.map(\.generation))),
                \(statement.bind(failures.map(\.kind.rawValue))), \(statement.bind(failures.map(\.message)))
            ) AS u(processor, id, version, generation, kind, message)
            ON CONFLICT (pipeline, processor, record_id) DO UPDATE SET
                version = excluded.version, generation = excluded.generation, current = true,
                kind = excluded.kind, message = excluded.message, run_id = excluded.run_id, failed_at = excluded.failed_at
            """
        try await connection.run(statement, logger: logger)
        try await unstamp(failures.map { ($0.recordID, $0.processor.name) }, connection, logger)
    }

    /// Marks the stamps of processors that failed not current: a processor that failed no longer
    /// vouches for the values it holds, so a dependent whose inputs changed, or failed, must not count
    /// as up to date. Only current rows are written.
    func unstamp(_ failed: [(Int64, String)], _ connection: PostgresConnection, _ logger: Logger) async throws {
        var statement = SQLStatement()
        statement.sql = """
            UPDATE rederive_stamps s SET current = false
            FROM unnest(\(statement.bind(failed.map(\.0))), \(statement.bind(failed.map(\.1)))) AS u(id, processor)
            WHERE s.pipeline = \(statement.bind(tables.pipeline.name)) AND s.processor = u.processor AND s.record_id = u.id
            AND s.current
            """
        try await connection.run(statement, logger: logger)
    }
}

/// One processor's stamp of one record, as a row of `rederive_stamps` is written.
struct StampRow {
    let recordID: Int64
    let processor: String
    let stamp: PostgresStamp
}
#endif
