import Foundation
import Rederive
import RederiveCodec
import RederiveJSON

/// A file to import and the key its record gets.
package struct ImportFile: Sendable {
    package let path: String
    package let key: String

    package init(path: String, key: String) {
        self.path = path
        self.key = key
    }

    /// The key a file at `path` is imported under: its name without its extension (`.json`).
    package static func key(forFileAt path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    /// What a worker made of the file.
    package enum Prepared: Sendable {
        /// Valid JSON, compressed for storage.
        case ready(ImportItem)
        /// Not a JSON document: skipped, and reported with the reason.
        case invalid(problem: String)
        /// The file could not be read: the import stops and writes nothing.
        case unreadable(RederiveError)
    }

    /// Reads the file, checks that it is one JSON document, and compresses it with `compressor`.
    package func prepare(with compressor: PayloadCompressor) -> Prepared {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.bytes(at: path)
        } catch {
            return .unreadable(RederiveError(.file, "cannot read \(path)", underlying: error))
        }
        if let problem = Self.jsonProblem(bytes) {
            return .invalid(problem: problem)
        }
        return .ready(ImportItem(key: key, payload: compressor.zlib(bytes), content: bytes))
    }

    /// Why the bytes are not a JSON document, or nil when they are one.
    static func jsonProblem(_ bytes: [UInt8]) -> String? {
        if bytes.isEmpty { return "the file is empty" }
        return JSONSyntax.problem(in: bytes).map { "not valid JSON \($0)" }
    }
}
