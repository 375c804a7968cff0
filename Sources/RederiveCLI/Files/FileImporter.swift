import Foundation
import Rederive
import RederiveCodec
import Synchronization

/// Imports files: workers read, check and compress them on every core, one writer stores them in file
/// order, in one transaction.
///
/// Memory holds at most `window` prepared files (JSON and compressed payload) besides SQLite's cache:
/// workers wait when the writer falls behind. Invalid files are reported as the writer reaches them
/// and skipped. An unreadable file, a database error or cancellation rolls the transaction back, so
/// the database is left exactly as it was.
package struct FileImporter: Sendable {
    package let files: [ImportFile]
    package let parallelism: Int
    /// Prepared files held at most, waiting for the writer or for a slower file before them.
    package var window: Int { max(8, 4 * parallelism) }
    /// The compressor's library: libdeflate when it loaded, unless a test chose zlib.
    package var library: InflateLibrary = .preferred
    /// The compression level, zlib's 0 to 9.
    package var level: Int32 = 6
    /// Invalid files named one per line, at most; the rest are only counted (nil: every one).
    package var listedSkips: Int? = 20

    package init(files: [ImportFile], parallelism: Int, level: Int32 = 6, library: InflateLibrary = .preferred) {
        self.files = files
        self.parallelism = parallelism
        self.level = level
        self.library = library
    }

    /// What the import did.
    package struct Outcome: Sendable {
        package var counts: ImportCounts
        package var skipped: Int
    }

    /// Imports the files into `store` in one transaction. `gate` decides whether a cancel comes in
    /// time to abandon it: the last file handed over begins the commit, unless the gate was abandoned.
    package func run(
        into store: any CommandStore, pipeline: Pipeline, console: Console, gate: ImportCommitGate = ImportCommitGate()
    ) async throws -> Outcome {
        let files = files
        let library = library
        let level = level
        let work = OrderedWork<ImportFile.Prepared>(
            count: files.count, workers: parallelism, window: window, name: "rederive import"
        ) {
            let compressor = PayloadCompressor(level: level, library: library)
            return { index in files[index].prepare(with: compressor) }
        }
        defer { work.cancel() }
        let listedSkips = listedSkips
        let skipped = Mutex(0)
        let position = Mutex(0)
        let counts = try await withTaskCancellationHandler {
            try await store.importPayloads(into: pipeline) {
                while let prepared = try work.next() {
                    let file = position.withLock { index in
                        defer { index += 1 }
                        return files[index]
                    }
                    switch prepared {
                    case .ready(let item):
                        return item
                    case .invalid(let problem):
                        let count = skipped.withLock { count in
                            count += 1
                            return count
                        }
                        if count <= listedSkips ?? .max {
                            console.errorLine("rederive: skipped \(file.path): \(problem)")
                        }
                    case .unreadable(let error):
                        throw error
                    }
                }
                try gate.beginCommit()
                return nil
            }
        } onCancel: {
            work.cancel()
        }
        return Outcome(counts: counts, skipped: skipped.withLock { $0 })
    }
}
