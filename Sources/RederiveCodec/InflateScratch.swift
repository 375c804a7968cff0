import Synchronization

/// What one worker keeps between payloads so that inflating the next one allocates nothing new: a
/// libdeflate decompressor and an output buffer that has grown to the largest payload seen so far.
///
/// Without it every payload allocated both, faulted a fresh buffer's pages in, and, when the first
/// guess of the inflated size was short, inflated again into a buffer twice as large. A codec used by
/// several threads at once lets one of them use the scratch; the others allocate as before.
package final class InflateScratch: Sendable {
    /// Buffers larger than this are given back after use rather than kept for the next payload.
    static let retainedCapacity = 8 << 20

    struct State: ~Copyable {
        var decompressor: OpaquePointer?
        var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var library: LibDeflate?

        deinit {
            if let decompressor, let library { library.freeDecompressor(decompressor) }
            buffer.deallocate()
        }

        /// The decompressor, allocated on first use.
        mutating func decompressor(from libdeflate: LibDeflate) -> OpaquePointer? {
            if decompressor == nil {
                decompressor = libdeflate.allocDecompressor()
                library = libdeflate
            }
            return decompressor
        }

        /// A buffer of at least `capacity` bytes: the kept one when it is large enough.
        mutating func buffer(capacity: Int) -> UnsafeMutableRawBufferPointer {
            if buffer.count < capacity {
                buffer.deallocate()
                buffer = .allocate(byteCount: capacity, alignment: 16)
            }
            return buffer
        }

        /// Gives a buffer too large to keep back.
        mutating func trim() {
            if buffer.count > InflateScratch.retainedCapacity {
                buffer.deallocate()
                buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
            }
        }
    }

    let state = Mutex(State())

    package init() {}
}
