import GRDB
import Rederive
@testable import RederiveCLI
import RederiveSQLite
import RederiveTestSupport
import RoomScan
import Testing

/// A Ctrl-C during `import` either abandons it, and nothing is written, or finds it committing, and
/// says so: never "nothing will be written" followed by a commit.
@Suite("Import commit gate", .timeLimit(.minutes(5)))
struct ImportCommitGateTests {
    @Test func anImportAbandonedBeforeItsLastFileIsHandedOverWritesNothing() async throws {
        try await CommandHarness.withHarness { harness in
            let store = try SQLiteStore.openForWriting(path: harness.databasePath, pipelines: [RoomScan.pipeline], creating: true)
            let files = try ImportCommand.importFiles(ImportCommand.jsonFiles(in: [RealExports.exportsDirectory]))
            let importer = FileImporter(files: files, parallelism: 2)
            let console = CapturedConsole().console

            // The signal came while files were still read: the store rolls the whole import back.
            let abandoned = ImportCommitGate()
            #expect(abandoned.abandon())
            await #expect(throws: (any Error).self) {
                _ = try await importer.run(into: store, pipeline: RoomScan.pipeline, console: console, gate: abandoned)
            }
            #expect(try await harness.connection().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans") } == 0)

            // Once the last file is handed over, the import commits, and a late signal cannot claim otherwise.
            let committing = ImportCommitGate()
            let outcome = try await importer.run(into: store, pipeline: RoomScan.pipeline, console: console, gate: committing)
            #expect(outcome.counts.inserted == files.count)
            #expect(!committing.abandon())
            #expect(try await harness.connection().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans") } == files.count)
        }
    }
}
