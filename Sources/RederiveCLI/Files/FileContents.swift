import Foundation

/// Reads a whole file into bytes with POSIX calls: one allocation of the file's size for a regular
/// file, and reading to the end for anything else (a pipe, a FIFO), which Foundation's
/// `Data(contentsOf:)` refuses.
enum FileContents {
    /// Why a file could not be read: the system's message for `errno`.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(errno number: Int32) {
            description = String(cString: strerror(number))
        }
    }

    static func bytes(at path: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(errno: errno) }
        if status.st_mode & S_IFMT == S_IFDIR { throw Failure(errno: EISDIR) }
        // A regular file's size is known; one byte more tells that it grew while being read.
        var capacity = status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) + 1 : 64 << 10
        var bytes: [UInt8] = []
        while true {
            var failure: Int32 = 0
            var ended = false
            let start = bytes.count
            bytes.reserveCapacity(start + capacity)
            bytes.append(contentsOf: repeatElement(0, count: capacity))
            let filled = bytes.withUnsafeMutableBytes { buffer -> Int in
                var filled = 0
                while filled < capacity {
                    let count = read(descriptor, buffer.baseAddress! + start + filled, capacity - filled)
                    if count < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        break
                    }
                    if count == 0 {
                        ended = true
                        break
                    }
                    filled += count
                }
                return filled
            }
            bytes.removeLast(capacity - filled)
            if failure != 0 { throw Failure(errno: failure) }
            if ended { return bytes }
            capacity = max(64 << 10, bytes.count)
        }
    }
}
