import Foundation
import Rederive

/// The room left on the disk that holds a file, checked before writing much to it.
enum DiskSpace {
    /// The bytes this user may still write on the file system of `path` (or of its directory, when
    /// no file is there yet); nil when the system does not say.
    static func available(at path: String) -> Int? {
        let directory = FileManager.default.fileExists(atPath: path) ? path : (path as NSString).deletingLastPathComponent
        var info = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }

    /// Throws, in one line, when writing `bytes` more to `path` would not fit on its disk: `what` is
    /// what would be written (`1,000,000 synthetic records`) and `instead` what to do.
    static func require(_ bytes: Int, for what: String, at path: String, instead: String) throws {
        guard let free = available(at: path), bytes > free else { return }
        throw RederiveError(
            .file,
            "\(what) need about \(Format.bytes(bytes)), and only \(Format.bytes(free)) is free on the disk of \(path); \(instead)"
        )
    }
}
