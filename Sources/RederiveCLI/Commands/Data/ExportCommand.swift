import ArgumentParser
import Foundation
import Rederive
import RederiveCodec

/// `rederive export DIRECTORY`: stored payloads written out as the JSON files `import` reads.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write stored payloads out as JSON files that import reads back.",
        discussion: """
            Each record becomes KEY.json in the directory (created when missing), holding its payload \
            inflated: the bytes that were imported, so that `rederive import DIRECTORY` reads them back \
            unchanged under the same keys. Records are read a page at a time; each file is written under a \
            temporary name, synced and renamed into place, so no file is ever seen half-written. Files that \
            exist already are not replaced without --force: the command checks first and writes nothing when \
            any is there. A record whose key cannot be a file name (empty, holding "/", too long) or whose \
            payload is missing or does not inflate is skipped and reported (the first 10; --verbose lists every \
            one), and the command exits with status 3 after exporting the others. --where takes a SQL condition on the pipeline's table, evaluated \
            read-only.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(name: .customLong("where"), help: ArgumentHelp(
        "Export only records that satisfy this SQL condition on the pipeline's table.",
        discussion: "Columns are named as in the table, for example \"scan_id LIKE 'kitchen-%'\". The condition may only read.",
        valueName: "condition"
    ))
    var condition: String?

    @Option(help: ArgumentHelp("Export at most this many records (the first by id).", valueName: "n"))
    var limit: Int?

    @Flag(help: "Replace files that exist already.")
    var force = false


    /// How many skipped records are listed without --verbose.
    static let skippedListed = 10

    @Option(help: ArgumentHelp("Skip payloads that inflate to more than this many MiB.", valueName: "MiB"))
    var maxPayloadSize: Int = PayloadCodec.defaultMaximumSize >> 20

    @Argument(help: ArgumentHelp("The directory to write the files into.", valueName: "directory"))
    var directory: String

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
        if maxPayloadSize < 1 { throw ValidationError("--max-payload-size must be at least 1 MiB") }
        if let condition, condition.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--where needs a condition, such as \"scan_id LIKE 'kitchen-%'\"")
        }
    }

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let pipeline = try database.singlePipeline(for: "export")
        guard pipeline.keyColumn != nil else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to name files by")
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue {
            throw RederiveError(.file, "\(directory) is not a directory")
        }
        let store = try await database.openForReading()
        let exporter = PayloadExporter(
            store: store, pipeline: pipeline, directory: directory, condition: condition, limit: limit,
            replacing: force, maximumPayloadSize: maxPayloadSize << 20
        )
        try await checkCondition(with: exporter, console: console)
        if exists, !force {
            let existing = try await exporter.existingFiles()
            if let first = existing.first.first {
                let others = existing.count - 1
                throw RederiveError(
                    .file,
                    (others == 0 ? "\(first) exists" : "\(first) and \(Format.count(others)) other \(others == 1 ? "file" : "files") exist")
                        + " already; nothing was exported (--force replaces them)"
                )
            }
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RederiveError(.file, "cannot create directory \(directory)", underlying: error)
        }
        let verbose = verbosity.verbose
        // With --verbose every skipped record is told as it is met. Otherwise the first few are told
        // once the export ends: an export that stops on an error (a full disk) says only that, in one
        // line, and the next export lists them.
        let task = Task {
            var listed: [String] = []
            let outcome = try await exporter.run { record, reason in
                let line = "rederive: skipped \(record): \(reason)"
                if verbose {
                    console.errorLine(line)
                } else if listed.count < Self.skippedListed {
                    listed.append(line)
                }
            }
            return (outcome, listed)
        }
        let signals = SignalCancellation(
            cancelling: task, console: console, announcement: "stopping; the files written so far stay"
        )
        defer { signals.stop() }
        let (outcome, listed) = try await task.value
        for line in listed {
            console.errorLine(line)
        }
        let exported = "\(Format.count(outcome.exported)) \(outcome.exported == 1 ? "record" : "records")"
        if outcome.interrupted {
            console.errorLine("rederive: export interrupted after \(exported); each file written is whole")
            throw ExitCode(signals.exitStatus)
        }
        console.line(
            "exported \(exported) of \(pipeline.table) to \(directory)"
                + (outcome.skipped > 0 ? ", \(Format.count(outcome.skipped)) skipped" : "")
        )
        if !verbosity.verbose, outcome.skipped > Self.skippedListed {
            let unlisted = outcome.skipped - Self.skippedListed
            console.errorLine("rederive: \(Format.count(unlisted)) more skipped \(unlisted == 1 ? "record is" : "records are") not listed (--verbose lists every one)")
        }
        if outcome.skipped > 0 {
            throw ExitCode(ExitStatus.someFailed)
        }
    }

    /// Reads one record through the `--where` condition before anything is written, so that a condition
    /// the database refuses is a usage error (status 64) told in one line that names it.
    private func checkCondition(with exporter: PayloadExporter, console: Console) async throws {
        guard condition != nil else { return }
        do {
            _ = try await exporter.firstPage(limit: 1)
        } catch let error as RederiveError where error.code == .invalidArgument {
            console.errorLine("rederive: --where: \(error.message)")
            throw ExitCode(ExitStatus.usage)
        }
    }
}
