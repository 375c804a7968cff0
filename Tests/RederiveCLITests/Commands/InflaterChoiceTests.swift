import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveTestSupport
import Testing

/// The executable says which inflater is active, and a run with libdeflate switched off stores
/// exactly what a run with it stores: the same values and the same payload digests.
@Suite("the inflater in use", .serialized, .timeLimit(.minutes(5)))
struct InflaterChoiceTests {
    @Test func versionSaysWhichInflaterIsActive() async throws {
        try await CommandHarness.withHarness { harness in
            let version = try await RederiveProcess.run(["--version"], in: harness.directory)
            #expect(version.status == 0)
            let lines = version.output.split(separator: "\n")
            #expect(lines.first == "rederive \(RederiveVersion.current)")
            if LibDeflate.loaded != nil {
                #expect(lines.last == "inflater: libdeflate (libdeflate.so.0), with zlib \(InflateLibrary.zlibVersion) for damaged payloads")
            } else {
                #expect(lines.last?.hasPrefix("inflater: zlib \(InflateLibrary.zlibVersion) (") == true)
            }

            let zlib = try await RederiveProcess.run(["--version"], wrapper: ["/usr/bin/env", "REDERIVE_LIBDEFLATE=0"], in: harness.directory)
            #expect(zlib.output.split(separator: "\n").last
                == "inflater: zlib \(InflateLibrary.zlibVersion) (libdeflate switched off by REDERIVE_LIBDEFLATE=0)")
        }
    }

    @Test func aRunWithLibdeflateSwitchedOffStoresTheSameValuesAndDigests() async throws {
        try await CommandHarness.withHarness { harness in
            var tables: [[[String]]] = []
            for (name, wrapper) in [("libdeflate", ["/usr/bin/env"]), ("zlib", ["/usr/bin/env", "REDERIVE_LIBDEFLATE=0"])] {
                let database = harness.directory.appendingPathComponent("\(name).sqlite").path
                let generated = try await RederiveProcess.run(
                    ["generate", "--db", database, "--count", "40", "--seed", "11", "--corrupt", "0.1"], wrapper: wrapper, in: harness.directory
                )
                #expect(generated.status == 0, "\(generated.errors)")
                _ = try await RederiveProcess.run(["import", "--db", database, RealExports.exportsDirectory], wrapper: wrapper, in: harness.directory)
                let run = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], wrapper: wrapper, in: harness.directory)
                #expect(run.status == 3, "\(run.errors)")
                tables.append(try await DatabaseQueue(path: database).read { db in
                    var rows: [[String]] = []
                    for sql in [
                        "SELECT * FROM room_scans_derived ORDER BY id",
                        // Import compresses with libdeflate when it is on: the imported exports are stored as other
                        // bytes of the same JSON, so only the generated payloads' digests must match.
                        """
                        SELECT s.record_id, s.processor, s.version,
                               CASE WHEN r.scan_id LIKE 'synthetic-%' THEN s.payload_digest END
                        FROM rederive_stamps s JOIN room_scans r ON r.id = s.record_id ORDER BY s.record_id, s.processor
                        """,
                        "SELECT record_id, processor, kind, message FROM rederive_failures ORDER BY record_id, processor",
                    ] {
                        rows.append([sql])
                        for row in try Row.fetchAll(db, sql: sql) {
                            rows.append(row.databaseValues.map { (value: DatabaseValue) -> String in value.description })
                        }
                    }
                    return rows
                })
            }
            #expect(tables.count == 2)
            #expect(tables[0].count > 60)
            #expect(tables[0] == tables[1])
        }
    }
}
