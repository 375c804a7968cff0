import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `rederive import PATH...`: JSON files become records, keyed by file name.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON files, or directories of them, as records.",
        discussion: """
            Each file becomes a record keyed by its name without `.json`; its payload is the file's bytes, \
            zlib-compressed. A changed file replaces its record's payload (its derived columns go stale); \
            an unchanged file changes nothing. A file that is not valid JSON is reported (with the line, \
            column and reason) and skipped, and the command exits with status 3 after importing the others. \
            Workers read, check and compress files on every core while one writer stores them, all in one \
            transaction: an unreadable file, an error or Ctrl-C leaves the database as it was.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Workers that read, check and compress files, up to 8 per core.", valueName: "n"))
    var parallel: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "zlib compression level: 1 compresses fastest, 9 smallest, 0 stores the JSON uncompressed.",
        discussion: "Exports that are mostly base64 shrink about as much at 1 as at 6, at less CPU per file.",
        valueName: "0-9"
    ))
    var level: Int = 6


    @Argument(help: ArgumentHelp("JSON files or directories that hold them.", valueName: "path"))
    var paths: [String]

    func validate() throws {
        try ValueBounds.workers.check(parallel, "--parallel")
        if !(0...9).contains(level) { throw ValidationError("--level must be from 0 to 9, not \(level)") }
    }

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let pipeline = try database.singlePipeline(for: "import")
        let files = try Self.importFiles(Self.jsonFiles(in: paths))
        guard !files.isEmpty else {
            // Nothing to import: said, and no database is created for it.
            console.errorLine("rederive: no .json files in \(paths.joined(separator: ", ")): nothing to import")
            return
        }
        // Files are read inside the import's transaction; when it fails, a database it created is removed.
        let createdFile = database.sqliteFile.flatMap { FileManager.default.fileExists(atPath: $0) ? nil : $0 }
        do {
            try await importFiles(files, into: pipeline, console: console)
        } catch let error where !(error is ExitCode) || [ExitStatus.interrupted, ExitStatus.terminated].contains((error as? ExitCode)?.rawValue ?? 0) {
            if let createdFile {
                for suffix in ["", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: createdFile + suffix)
                }
            }
            throw error
        }
    }

    private func importFiles(_ files: [ImportFile], into pipeline: Pipeline, console: Console) async throws {
        let store = try await database.openPreparing(creating: true)
        var importer = FileImporter(files: files, parallelism: parallel, level: Int32(level))
        importer.listedSkips = verbosity.verbose ? nil : importer.listedSkips
        let gate = ImportCommitGate()
        let task = Task { try await importer.run(into: store, pipeline: pipeline, console: console, gate: gate) }
        let signals = SignalCancellation(cancelling: task, console: console) {
            gate.abandon()
                ? "stopping; nothing of this import will be written"
                : "every file is read and the import is being committed; it ends in a moment"
        }
        defer { signals.stop() }
        let outcome: FileImporter.Outcome
        do {
            outcome = try await task.value
        } catch where task.isCancelled || gate.isAbandoned {
            console.errorLine("rederive: import interrupted; nothing was written")
            throw ExitCode(signals.exitStatus)
        }
        let counts = outcome.counts
        let skipped = outcome.skipped
        console.line(
            "imported \(Format.count(files.count - skipped)) of \(Format.count(files.count, "file")) into \(pipeline.table): "
                + "\(counts.inserted) new, \(counts.replaced) replaced, \(counts.unchanged) unchanged"
                + (skipped > 0 ? ", \(skipped) skipped" : "")
        )
        if let listed = importer.listedSkips, skipped > listed {
            console.errorLine("rederive: \(Format.count(skipped - listed, "more file")) skipped, not named here; name every one with --verbose")
        }
        if skipped > 0 {
            throw ExitCode(ExitStatus.someFailed)
        }
    }

    /// Each file with its key (its name without `.json`); two files with one key are refused.
    static func importFiles(_ paths: [String]) throws -> [ImportFile] {
        var seen: [String: String] = [:]
        return try paths.map { file in
            let key = ImportFile.key(forFileAt: file)
            if let other = seen[key] {
                throw RederiveError(.invalidArgument, "\(file) and \(other) would both be imported as \"\(key)\"")
            }
            seen[key] = file
            return ImportFile(path: file, key: key)
        }
    }

    /// The `.json` files named, or found below the directories named, in a stable order. A directory
    /// that cannot be read, at any depth, is an error that names it, as an unreadable file is: an
    /// import never leaves part of what it was given out without saying so.
    static func jsonFiles(in paths: [String]) throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw RederiveError(.file, "no such file or directory: \(path)")
            }
            if isDirectory.boolValue {
                files += try jsonFiles(below: path).sorted().map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// The `.json` files below `directory`, as paths relative to it; symbolic links to directories
    /// are not followed.
    private static func jsonFiles(below directory: String, relative: String = "") throws -> [String] {
        let manager = FileManager.default
        let here = relative.isEmpty ? directory : (directory as NSString).appendingPathComponent(relative)
        let entries: [String]
        do {
            entries = try manager.contentsOfDirectory(atPath: here)
        } catch {
            throw RederiveError(.file, "cannot read directory \(here): \(unreadableReason(here)); nothing was imported")
        }
        var found: [String] = []
        for entry in entries {
            let path = relative.isEmpty ? entry : (relative as NSString).appendingPathComponent(entry)
            let type = (try? manager.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(path)))?[.type] as? FileAttributeType
            if type == .typeDirectory {
                found += try jsonFiles(below: directory, relative: path)
            } else if entry.lowercased().hasSuffix(".json") {
                found.append(path)
            }
        }
        return found
    }

    /// Why the directory at `path` cannot be listed, as the system says it: `Permission denied`.
    private static func unreadableReason(_ path: String) -> String {
        guard let handle = opendir(path) else { return String(cString: strerror(errno)) }
        closedir(handle)
        return "it could not be listed"
    }
}
