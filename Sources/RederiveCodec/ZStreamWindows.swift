import CZlib

extension UnsafeMutablePointer where Pointee == z_stream {
    /// Points zlib at its next windows: the next chunk of `source` once it has read the last one, and
    /// the free part of `buffer` after its first `count` bytes. Each is at most 4 GiB, because
    /// `avail_in` and `avail_out` are 32-bit. Returns the room offered, so the caller can count what
    /// zlib wrote.
    func offerWindows(
        source: UnsafeBufferPointer<UInt8>, fed: inout Int, buffer: UnsafeMutableBufferPointer<UInt8>, count: Int
    ) -> Int {
        if pointee.avail_in == 0 && fed < source.count {
            let chunk = min(source.count - fed, Int(UInt32.max))
            pointee.next_in = UnsafeMutablePointer<UInt8>(mutating: source.baseAddress! + fed)
            pointee.avail_in = UInt32(chunk)
            fed += chunk
        }
        let room = min(buffer.count - count, Int(UInt32.max))
        pointee.next_out = buffer.baseAddress! + count
        pointee.avail_out = UInt32(room)
        return room
    }
}
