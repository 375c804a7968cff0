import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RoomScan
import RoomScanGenerator
import Synchronization
import Testing

/// The built `rederive` executable under faults: killed with SIGKILL, racing a live writer, locked
/// out, refused writes. Whatever happens, nothing is lost, no value is wrong, and the next run succeeds.
@Suite("Fault injection", .serialized, .timeLimit(.minutes(10)))
struct FaultInjectionTests {
    static let columns = RoomScan.pipeline.outputColumns.map { "d.\($0.name.quotedDatabaseIdentifier)" }.joined(separator: ", ")

    @Test func killedTwentyTimesTheDatabaseEndsExactlyAsACleanRunLeavesIt() async throws {
        try await withDirectory { directory in
            let database = directory.appendingPathComponent("killed.sqlite").path
            let clean = directory.appendingPathComponent("clean.sqlite").path
            try await expectStatus([0], try await RederiveProcess.run(
                ["generate", "--db", database, "--count", "4000", "--seed", "17", "--corrupt", "0.02"], in: directory))
            // A copy through SQLite's backup, which includes what is still in the WAL.
            try connection(database).backup(to: connection(clean))
            let payloadsBefore = try payloads(database)
            try await expectStatus([3], try await RederiveProcess.run(["run", "--db", clean, "--progress", "none"], in: directory))

            var random = SplitMix64(seed: 2_024)
            for kill in 1...20 {
                if try staleCount(database) < 2_000 * RoomScan.processors.count {
                    // Forget the values so that the run has far more to do than it can finish before the
                    // kill: every record is derived again.
                    try await connection(database).write { db in
                        try db.execute(sql: "UPDATE rederive_stamps SET current = 0")
                        try db.execute(sql: "UPDATE rederive_failures SET current = 0")
                        try db.execute(sql: "DELETE FROM room_scans_derived")
                    }
                }
                // Paced to 200 records a second, so that the run, with at least 2,000 records to do, lasts
                // seconds longer than this test takes to see its reports on a loaded machine: unpaced, on
                // stored projections, a run once ended in 3 s, and at 500 a second one ended in 6.8 s,
                // each before the kill that was meant for it. Each run is killed after a few reports, so
                // the pace costs the test no time.
                let run = try RederiveProcess.start(
                    ["run", "--db", database, "--parallel", "8", "--batch-size", "100", "--max-rate", "200", "--progress", "json"],
                    in: directory)
                // Killed right after its first to fourth committed batch is reported: mid-run, at varying points.
                let reports = Int.random(in: 1...4, using: &random)
                _ = try await run.waitForOutput { Self.events($0, "progress").count >= reports }
                run.kill()
                let outcome = try await run.wait()
                try expectKilledMidRun(outcome, database, "kill \(kill)")
            }

            try await expectStatus([3], try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory))
            #expect(try integrity(database) == "ok")
            #expect(try staleCount(database) == 0)
            #expect(try payloads(database) == payloadsBefore)
            #expect(try derivedValues(database) == derivedValues(clean))
            #expect(try failures(database) == failures(clean))
            #expect(!(try failures(clean)).isEmpty, "the corpus has broken records")
        }
    }

    @Test func aLiveWriterLosesNothingAndNoValueComesFromAReplacedPayload() async throws {
        try await withDirectory { directory in
            let database = directory.appendingPathComponent("live.sqlite").path
            try await expectStatus([0], try await RederiveProcess.run(
                ["generate", "--db", database, "--count", "3000", "--seed", "5"], in: directory))
            // The run is paced so that the writer's 60 writes land while it goes on.
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "8", "--batch-size", "100", "--max-rate", "1000", "--progress", "none"],
                in: directory)
            let writer = LiveWriter(path: database, existing: 3000, operations: 60)
            writer.start()
            let outcome = try await run.wait()
            let written = writer.finish()
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(written.errors.isEmpty, "\(written.errors.prefix(3))")
            #expect(written.operations == 60)

            // Every write is there: inserted and replaced payloads as written, deleted rows gone.
            let stored = try payloads(database)
            for (key, payload) in written.expected {
                #expect(stored[key] == payload, "\(key)")
            }
            try expectNoOrphans(database)
            try expectStampsMatchPayloads(database)

            // Values that a current stamp vouches for are exactly what the payload derives now.
            let report = try await Verifier(source: try SQLiteStore(path: database), pipelines: [RoomScan.pipeline]).verify()
            #expect(report.differences.filter(\.upToDate).isEmpty, "\(report.differences.filter(\.upToDate).prefix(3))")

            try await expectStatus([0], try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory))
            try await expectStatus([0], try await RederiveProcess.run(["verify", "--db", database], in: directory))
            #expect(try staleCount(database) == 0)
            #expect(try integrity(database) == "ok")
        }
    }

    @Test func aDatabaseLockedLongerThanTheBusyTimeoutIsAClearErrorAndTheNextRunSucceeds() async throws {
        try await withDirectory { directory in
            let database = directory.appendingPathComponent("locked.sqlite").path
            try await expectStatus([0], try await RederiveProcess.run(["generate", "--db", database, "--count", "200"], in: directory))
            // Another program holds the write lock until told to let go.
            let lock = try await ExclusiveLock.take(database)
            let locked = try await RederiveProcess.run(
                ["run", "--db", database, "--busy-timeout", "0.5", "--progress", "none"], in: directory)
            await lock.release()
            try expectOneLineError(locked, mentioning: "locked")

            try await expectFullRecovery(database, in: directory)
        }
    }

    @Test func aReadOnlyDatabaseFileIsAClearErrorAndTheNextRunSucceeds() async throws {
        try await withDirectory { directory in
            let database = directory.appendingPathComponent("readonly.sqlite").path
            try await expectStatus([0], try await RederiveProcess.run(["generate", "--db", database, "--count", "200"], in: directory))
            let before = try payloads(database)
            // root writes to any file whatever its mode: run as nobody then, in a directory nobody may write.
            let asUnprivileged = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : []
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database)
            let refused = try await RederiveProcess.run(
                ["run", "--db", database, "--progress", "none"], wrapper: asUnprivileged, in: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
            try expectOneLineError(refused, mentioning: database)
            #expect(try payloads(database) == before)

            try await expectFullRecovery(database, in: directory)
        }
    }

    @Test func aWriteRefusedForLackOfSpaceIsAClearErrorAndTheNextRunSucceeds() async throws {
        try await withDirectory { directory in
            let database = directory.appendingPathComponent("full.sqlite").path
            try await expectStatus([0], try await RederiveProcess.run(["generate", "--db", database, "--count", "3000"], in: directory))
            let before = try payloads(database)
            // The kernel refuses writes beyond 256 KiB into any file, as a full disk refuses them
            // (ignoring SIGXFSZ turns the signal into a failing write).
            let full = try await RederiveProcess.run(
                ["run", "--db", database, "--progress", "none"],
                wrapper: ["/bin/sh", "-c", #"trap '' XFSZ; exec prlimit --fsize=262144 -- "$@""#, "sh"],
                in: directory
            )
            try expectOneLineError(full, mentioning: database)
            #expect(try payloads(database) == before)

            try await expectFullRecovery(database, in: directory)
        }
    }

    // MARK: - Checks

    /// The run reported progress, never finished, and was killed: its run record is left `running`,
    /// and it handled some of the records it set out to derive, but not all of them.
    func expectKilledMidRun(_ outcome: RederiveProcess.Outcome, _ database: String, _ context: String) throws {
        #expect(outcome.signaled && outcome.status == SIGKILL, "\(context): \(outcome.signaled ? "signal" : "status") \(outcome.status) \(outcome.errors)")
        #expect(Self.events(outcome.output, "finished").isEmpty, "\(context) let the run finish")
        let started = try #require(Self.events(outcome.output, "started").first, "\(context): \(outcome.output)")
        let runID = try #require(started["runId"] as? Int)
        let total = try #require(started["total"] as? Int)
        let progress = Self.events(outcome.output, "progress").compactMap { $0["done"] as? Int }
        #expect(!progress.isEmpty && progress.allSatisfy { $0 < total }, "\(context): \(progress) of \(total)")
        let (status, handled) = try connection(database).read { db in
            (
                try String.fetchOne(db, sql: "SELECT status FROM rederive_runs WHERE id = ?", arguments: [runID]),
                // Records the run stamped or recorded a failure for.
                try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM (
                        SELECT record_id FROM rederive_stamps WHERE run_id = ?1
                        UNION SELECT record_id FROM rederive_failures WHERE run_id = ?1)
                    """, arguments: [runID]) ?? 0
            )
        }
        #expect(status == RunStatus.running.rawValue, "\(context)")
        #expect(handled > 0 && handled < total, "\(context): \(handled) of \(total) records handled")
    }

    /// The `--progress json` events of one kind (`started`, `progress`, `finished`) among complete lines.
    static func events(_ output: String, _ kind: String) -> [[String: Any]] {
        output.split(separator: "\n").dropLast(output.hasSuffix("\n") ? 0 : 1).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == kind }
    }

    func expectStatus(_ statuses: Set<Int32>, _ outcome: RederiveProcess.Outcome, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(!outcome.signaled && statuses.contains(outcome.status), "status \(outcome.status): \(outcome.errors)", sourceLocation: sourceLocation)
    }

    /// A fatal error: exit status 1 and one line on standard error that names the problem.
    func expectOneLineError(_ outcome: RederiveProcess.Outcome, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!outcome.signaled && outcome.status == 1, "status \(outcome.status): \(outcome.errors)", sourceLocation: sourceLocation)
        let lines = outcome.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.errors)", sourceLocation: sourceLocation)
        #expect(outcome.errors.hasPrefix("rederive: ") && outcome.errors.contains(text), "\(outcome.errors)", sourceLocation: sourceLocation)
    }

    /// Nothing is corrupted and the next run derives everything, with values `verify` confirms.
    func expectFullRecovery(_ database: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try integrity(database) == "ok", sourceLocation: sourceLocation)
        try await expectStatus([0], try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory), sourceLocation: sourceLocation)
        try await expectStatus([0], try await RederiveProcess.run(["verify", "--db", database], in: directory), sourceLocation: sourceLocation)
        #expect(try staleCount(database) == 0, sourceLocation: sourceLocation)
        #expect(try integrity(database) == "ok", sourceLocation: sourceLocation)
    }

    /// Deleted rows left no bookkeeping or derived row behind.
    func expectNoOrphans(_ database: String) throws {
        let orphans = try connection(database).read { db in
            try ["rederive_records", "rederive_stamps", "rederive_failures"].map { table in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE record_id NOT IN (SELECT id FROM room_scans)") ?? -1
            } + [try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans_derived WHERE id NOT IN (SELECT id FROM room_scans)") ?? -1]
        }
        #expect(orphans == [0, 0, 0, 0])
    }

    /// Every current stamp names the payload the record holds now: its generation and its digest.
    func expectStampsMatchPayloads(_ database: String) throws {
        let rows = try connection(database).read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.processor, s.record_id, s.generation AS stamped, r.generation AS current, s.payload_digest, t.payload
                FROM rederive_stamps s
                JOIN rederive_records r ON r.source = s.source AND r.record_id = s.record_id
                JOIN room_scans t ON t.id = s.record_id
                WHERE s.current = 1
                """)
        }
        #expect(!rows.isEmpty)
        for row in rows {
            let payload: Data = row["payload"]
            let stamped: Int64 = row["stamped"]
            let current: Int64 = row["current"]
            let digest: Int64 = row["payload_digest"]
            #expect(stamped == current && digest == PayloadCodec.digest([UInt8](payload)), "record \(row["record_id"] as Int64)")
        }
    }

    // MARK: - Reading the database as another program

    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-faults-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    func connection(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    func payloads(_ path: String) throws -> [String: Data] {
        try connection(path).read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT scan_id, payload FROM room_scans").map {
                ($0[0] as String, $0[1] as Data)
            })
        }
    }

    func derivedValues(_ path: String) throws -> [String: [DatabaseValue]] {
        try connection(path).read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT s.scan_id, \(Self.columns) FROM room_scans s LEFT JOIN room_scans_derived d ON d.id = s.id
                """).map { ($0[0] as String, Array($0.databaseValues.dropFirst())) })
        }
    }

    func failures(_ path: String) throws -> Set<String> {
        try connection(path).read { db in
            Set(try Row.fetchAll(db, sql: """
                SELECT s.scan_id, f.processor, f.kind, f.message FROM rederive_failures f JOIN room_scans s ON s.id = f.record_id
                WHERE f.current = 1
                """).map { "\($0[0] as String) \($0[1] as String) \($0[2] as String) \($0[3] as String)" })
        }
    }

    func integrity(_ path: String) throws -> String {
        try connection(path).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// Record and processor pairs neither up to date nor failed at the current version.
    func staleCount(_ path: String) throws -> Int {
        try connection(path).read { db in
            let records = try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans") ?? 0
            var settled = 0
            for processor in RoomScan.processors {
                for table in ["rederive_stamps", "rederive_failures"] {
                    settled += try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \(table) WHERE processor = ? AND version = ? AND current = 1",
                        arguments: [processor.name, processor.version]
                    ) ?? 0
                }
            }
            return records * RoomScan.processors.count - settled
        }
    }
}

/// Another program writing to `room_scans` on its own connection while a run goes on: inserts,
/// payload replacements and deletes, each its own transaction, remembering what each key should hold.
final class LiveWriter: Sendable {
    struct Result: Sendable {
        var operations = 0
        var errors: [String] = []
        /// What each touched key holds after the writer's last write; nil when deleted.
        var expected: [String: Data?] = [:]
    }

    let path: String
    let existing: Int
    let operations: Int
    private let state = Mutex(Result())
    private let done = DispatchSemaphore(value: 0)

    init(path: String, existing: Int, operations: Int) {
        self.path = path
        self.existing = existing
        self.operations = operations
    }

    func start() {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let queue: DatabaseQueue
            do {
                queue = try DatabaseQueue(path: path, configuration: configuration)
            } catch {
                state.withLock { $0.errors.append("open: \(error)") }
                return
            }
            var random = SplitMix64(seed: 99)
            var inserted = 0
            let generator = RoomScanGenerator(seed: 77)
            for _ in 0..<operations {
                let index = Int.random(in: 0..<existing, using: &random)
                let key = String(format: "synthetic-5-%07d", index)
                do {
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0:
                        inserted += 1
                        let payload = Data(PayloadCodec.encode(generator.scan(at: inserted)))
                        let newKey = "live-\(inserted)"
                        try queue.write { db in
                            try db.execute(sql: "INSERT INTO room_scans (scan_id, payload) VALUES (?, ?)", arguments: [newKey, payload])
                        }
                        state.withLock { $0.expected[newKey] = payload }
                    case 1:
                        let payload = Data(PayloadCodec.encode(generator.scan(at: 10_000 + index)))
                        let changed = try queue.write { db in
                            try db.execute(sql: "UPDATE room_scans SET payload = ? WHERE scan_id = ?", arguments: [payload, key])
                            return db.changesCount
                        }
                        if changed > 0 { state.withLock { $0.expected[key] = payload } }
                    default:
                        try queue.write { db in
                            try db.execute(sql: "DELETE FROM room_scans WHERE scan_id = ?", arguments: [key])
                        }
                        state.withLock { $0.expected[key] = Data?.none }
                    }
                    state.withLock { $0.operations += 1 }
                } catch {
                    state.withLock { $0.errors.append("\(error)") }
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Waits for the last write and returns what was written.
    func finish() -> Result {
        done.wait()
        return state.withLock { $0 }
    }
}
