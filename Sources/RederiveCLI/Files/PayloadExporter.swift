import Foundation
import Rederive
import RederiveCodec
import RederiveSQLite

/// Writes the payloads of one pipeline's records out as JSON files, `KEY.json` in one directory, that
/// `import` reads back under the same keys.
///
/// Records are read a page at a time, so memory holds at most one page of payloads. Each file is
/// written whole or not at all (``ExportFile/save(_:to:replacing:)``). A record that cannot be written
/// (no key, a key that cannot be a file name, no payload, a payload that does not inflate) is reported
/// and skipped.
struct PayloadExporter {
    let store: any CommandStore
    let pipeline: Pipeline
    let directory: String
    /// A SQL condition on the pipeline's table that exported records satisfy; nil for all.
    let condition: String?
    /// How many matching records to export at most; nil for all.
    let limit: Int?
    /// Whether existing files are replaced.
    let replacing: Bool
    /// The cap on an inflated payload, in bytes.
    let maximumPayloadSize: Int
    /// Records read per page.
    var pageSize = 64

    /// What the export did.
    struct Outcome: Sendable {
        var exported = 0
        var skipped = 0
        /// Whether it stopped early because its task was cancelled.
        var interrupted = false
    }

    /// The files of matching records that exist already, with the first few paths, read page by page
    /// before anything is written: an export without `--force` refuses them all at once.
    func existingFiles() async throws -> (count: Int, first: [String]) {
        var count = 0
        var first: [String] = []
        try await forEachPage(includingPayloads: false) { page in
            for record in page {
                guard let key = record.key, case .success(let name) = ExportFile.name(for: key) else { continue }
                let path = (directory as NSString).appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: path) {
                    count += 1
                    if first.count < 3 { first.append(path) }
                }
            }
            return true
        }
        return (count, first)
    }

    /// Writes every matching record's file; `skip` is told each record that is skipped (its key, or
    /// `record ID` when it has none) and why.
    func run(skip: (_ record: String, _ reason: String) -> Void) async throws -> Outcome {
        var outcome = Outcome()
        let codec = PayloadCodec(maximumSize: maximumPayloadSize)
        try await forEachPage(includingPayloads: true) { page in
            for record in page {
                if Task.isCancelled {
                    outcome.interrupted = true
                    return false
                }
                let label = record.key.map { "\"\($0)\"" } ?? "record \(record.recordID)"
                let name: String
                let json: [UInt8]
                switch Self.file(of: record, codec: codec) {
                case .success(let file):
                    (name, json) = file
                case .failure(let skipped):
                    skip(label, skipped.reason)
                    outcome.skipped += 1
                    continue
                }
                let path = (directory as NSString).appendingPathComponent(name)
                let saved: Bool
                do throws(RederiveError) {
                    saved = try ExportFile.save(json, to: path, replacing: replacing)
                } catch {
                    // The files finished so far stay, their names synced, as an export's end syncs them.
                    try? AtomicFile.sync(directory)
                    throw RederiveError(error.code, "\(error.message); \(Self.stopped(outcome))")
                }
                guard saved else {
                    try AtomicFile.sync(directory)
                    throw RederiveError(
                        .file,
                        "\(path) exists already (written meanwhile, or by a record whose key names the same file); "
                            + "stopped after \(outcome.exported) \(outcome.exported == 1 ? "file" : "files") (--force replaces files)"
                    )
                }
                outcome.exported += 1
            }
            return true
        }
        try AtomicFile.sync(directory)
        return outcome
    }

    /// What an export that stops on an error did before: the files it finished are whole, and no
    /// temporary file is left.
    private static func stopped(_ outcome: Outcome) -> String {
        "stopped after \(outcome.exported) \(outcome.exported == 1 ? "file" : "files"), each whole"
            + (outcome.skipped > 0 ? " (\(outcome.skipped) \(outcome.skipped == 1 ? "record" : "records") skipped; export again to list \(outcome.skipped == 1 ? "it" : "them"))" : "")
    }

    /// A record's file name and contents, or why it has none: no key, a key no file name can hold, no
    /// payload, or a payload that does not inflate.
    private static func file(of record: StoredPayload, codec: PayloadCodec) -> Result<(name: String, json: [UInt8]), Skipped> {
        guard let key = record.key else { return .failure(Skipped(reason: "it has no key")) }
        let name: String
        switch ExportFile.name(for: key) {
        case .success(let found): name = found
        case .failure(let unnamable): return .failure(Skipped(reason: "its key cannot be a file name: \(unnamable.reason)"))
        }
        guard let payload = record.payload else { return .failure(Skipped(reason: "it has no payload")) }
        do {
            return .success((name, try codec.decode(payload)))
        } catch {
            return .failure(Skipped(reason: "its payload cannot be read: \(error)"))
        }
    }

    /// Why a record is not exported.
    struct Skipped: Error {
        let reason: String
    }

    /// The keys of the first `limit` matching records: reading them checks the condition.
    func firstPage(limit: Int) async throws -> [StoredPayload] {
        try await store.storedPayloads(of: pipeline, matching: condition, after: nil, limit: limit, includingPayloads: false)
    }

    /// Reads the matching records a page at a time, up to ``limit``, and hands each page to `body`
    /// until it returns false.
    private func forEachPage(includingPayloads: Bool, _ body: ([StoredPayload]) throws -> Bool) async throws {
        var cursor: Int64?
        var remaining = limit ?? Int.max
        while remaining > 0 {
            let page = try await store.storedPayloads(
                of: pipeline, matching: condition, after: cursor, limit: min(pageSize, remaining),
                includingPayloads: includingPayloads
            )
            guard let last = page.last, try body(page) else { return }
            cursor = last.recordID
            remaining -= page.count
        }
    }
}
