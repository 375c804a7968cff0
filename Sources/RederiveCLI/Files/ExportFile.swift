import Foundation
import Rederive
import RederiveSQLite

/// A record's payload as a JSON file that `import` reads back under the same key: `KEY.json`.
enum ExportFile {
    /// The longest file name most file systems allow, in bytes.
    static let maximumNameLength = 255

    /// The file name `import` reads back as `key`, or why no file name can hold it: the key is empty,
    /// holds `/` or NUL, is too long, or would be read back as another key.
    static func name(for key: String) -> Result<String, Unnamable> {
        let name = key + ".json"
        if key.isEmpty { return .failure(Unnamable(reason: "it is empty")) }
        if key.contains("/") { return .failure(Unnamable(reason: "it contains \"/\"")) }
        if key.contains("\0") { return .failure(Unnamable(reason: "it contains a NUL character")) }
        if name.utf8.count > maximumNameLength {
            return .failure(Unnamable(reason: "it is longer than a file name can be (\(maximumNameLength - 5) bytes)"))
        }
        let readBack = ImportFile.key(forFileAt: name)
        guard readBack == key else {
            return .failure(Unnamable(reason: "import would read \(name) back as \"\(readBack)\""))
        }
        return .success(name)
    }

    /// Why a key cannot be a file name.
    struct Unnamable: Error {
        let reason: String
    }

    /// Writes `bytes` to `path` whole or not at all: into a temporary file beside it, synced, then
    /// moved into place. Without `replacing`, a file already at `path` is left alone and false returned.
    /// The directory is synced by the caller, once all its files are written. A failure names `path`
    /// and why (``writeFailure(_:code:)``), and leaves no temporary file.
    static func save(_ bytes: [UInt8], to path: String, replacing: Bool) throws(RederiveError) -> Bool {
        let temporary = AtomicFile.temporaryPath(beside: path)
        defer { unlink(temporary) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw writeFailure(path, code: errno)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                // A write that returns 0 wrote nothing: only a full disk does that to a regular file.
                let code = count == 0 ? ENOSPC : errno
                close(descriptor)
                throw writeFailure(path, code: code)
            }
            written += count
        }
        guard close(descriptor) == 0 else {
            throw writeFailure(path, code: errno)
        }
        if replacing {
            try AtomicFile.install(temporary, at: path, syncingDirectory: false)
            return true
        }
        return try AtomicFile.installNew(temporary, at: path, syncingDirectory: false)
    }

    /// Why `path` could not be written, for a person: no room (a full disk, a quota, a file size
    /// limit) is named as such; anything else in the system's own words. It names the file the user
    /// asked for, not the hidden temporary one, which is gone by then.
    static func writeFailure(_ path: String, code: Int32) -> RederiveError {
        let directory = (path as NSString).deletingLastPathComponent
        return switch code {
        case ENOSPC: RederiveError(.file, "the disk is full: no room to write \(path) (the disk holding \(directory) has no space left)")
        case EDQUOT: RederiveError(.file, "the disk quota is used up: no room to write \(path)")
        case EFBIG: RederiveError(.file, "no room to write \(path): it would be larger than this process may write (a file size limit)")
        default: RederiveError(.file, "cannot write \(path): \(String(cString: strerror(code)))")
        }
    }
}
