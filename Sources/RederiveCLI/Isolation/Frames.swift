import Glibc

/// Length-prefixed frames over a pipe, with blocking reads and writes: a 4-byte little-endian
/// length, then the body.
enum Frames {
    /// Writes one frame; false when the other end is gone.
    static func send(_ body: [UInt8], to descriptor: Int32) -> Bool {
        var length = UInt32(body.count).littleEndian
        let header = withUnsafeBytes(of: &length) { Array($0) }
        return writeAll(header, to: descriptor) && writeAll(body, to: descriptor)
    }

    /// Reads one frame; nil at end of input or when the other end is gone.
    static func receive(from descriptor: Int32, maximum: Int) -> [UInt8]? {
        guard let header = readExactly(4, from: descriptor) else { return nil }
        let length = Int(header.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard length <= maximum else { return nil }
        return readExactly(length, from: descriptor)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, bytes.count - written)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return false }
            written += result
        }
        return true
    }

    private static func readExactly(_ count: Int, from descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + filled, count - filled)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            filled += result
        }
        return bytes
    }
}
