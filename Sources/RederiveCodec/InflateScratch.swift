import Synchronization

/// What one worker keeps between payloads: a libdeflate decompressor, and the largest inflated size
/// seen so far, which sizes the next payload's output so that it is inflated once, straight into the
/// array the caller gets.
///
/// Without it every payload allocated a decompressor and, when the first guess of the inflated size
/// was short, inflated again into a buffer twice as large. A codec used by several threads at once
/// lets one of them use the scratch; the others allocate as before.
package final class InflateScratch: Sendable {
    /// The largest output size remembered: a larger payload does not make every later one reserve as much.
    static let rememberedCapacity = 8 << 20

    struct State: ~Copyable {
        var decompressor: OpaquePointer?
        var library: LibDeflate?
        /// The output capacity that held the largest payload so far, up to ``rememberedCapacity``.
        var largestOutput = 0

        deinit {
            if let decompressor, let library { library.freeDecompressor(decompressor) }
        }

        /// The decompressor, allocated on first use.
        mutating func decompressor(from libdeflate: LibDeflate) -> OpaquePointer? {
            if decompressor == nil {
                decompressor = libdeflate.allocDecompressor()
                library = libdeflate
            }
            return decompressor
        }

        /// Remembers that an output of `capacity` bytes held a payload.
        mutating func held(_ capacity: Int) {
            largestOutput = min(InflateScratch.rememberedCapacity, max(largestOutput, capacity))
        }
    }

    let state = Mutex(State())

    package init() {}
}
