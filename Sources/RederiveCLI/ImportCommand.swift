import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite
import RederiveCodec

/// `rederive import PATH...`: JSON files become records, keyed by file name.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON files, or directories of them, as records.",
        discussion: """
            Each file becomes a record keyed by its name without `.json`; its payload is the file's bytes, \
            zlib-compressed. A changed file replaces its record's payload (its derived columns go stale); \
            an unchanged file changes nothing. A file that is not valid JSON is reported and skipped, and \
            the command exits with status 3 after importing the others in one transaction.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("JSON files or directories that hold them.", valueName: "path"))
    var paths: [String]

    func run() async throws {
        let console = database.environment.console
        let pipeline = try database.singlePipeline(for: "import")
        let files = try Self.jsonFiles(in: paths)
        var payloads: [(key: String, payload: [UInt8])] = []
        var seen: [String: String] = [:]
        var skipped = 0
        for file in files {
            let key = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            if let other = seen[key] {
                throw RederiveError(.invalidArgument, "\(file) and \(other) would both be imported as \"\(key)\"")
            }
            seen[key] = file
            let bytes: [UInt8]
            do {
                bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                throw RederiveError(.file, "cannot read \(file)", underlying: error)
            }
            if let problem = Self.jsonProblem(bytes) {
                console.errorLine("rederive: skipped \(file): \(problem)")
                skipped += 1
                continue
            }
            payloads.append((key, PayloadCodec.encode(bytes)))
        }
        let store = try await database.openStore()
        let counts = try await store.writePayloads(payloads, into: pipeline)
        console.line(
            "imported \(files.count - skipped) of \(files.count) files into \(pipeline.table): "
                + "\(counts.inserted) new, \(counts.replaced) replaced, \(counts.unchanged) unchanged"
                + (skipped > 0 ? ", \(skipped) skipped" : "")
        )
        if skipped > 0 {
            throw ExitCode(ExitStatus.someFailed)
        }
    }

    /// The `.json` files named, or found below the directories named, in a stable order.
    static func jsonFiles(in paths: [String]) throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw RederiveError(.file, "no such file or directory: \(path)")
            }
            if isDirectory.boolValue {
                guard let entries = manager.enumerator(atPath: path) else {
                    throw RederiveError(.file, "cannot list directory \(path)")
                }
                let found = entries.compactMap { $0 as? String }
                    .filter { $0.lowercased().hasSuffix(".json") }
                    .sorted()
                    .map { (path as NSString).appendingPathComponent($0) }
                files += found
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Why the bytes are not a JSON document, or nil when they are one.
    static func jsonProblem(_ bytes: [UInt8]) -> String? {
        if bytes.isEmpty { return "the file is empty" }
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            return nil
        } catch {
            return "not valid JSON (\((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription))"
        }
    }
}
