#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The C allocator's thresholds for a `rederive` process, whose derivation threads allocate and free
/// buffers of a few hundred kilobytes (inflated payloads, their decoding) for every record.
///
/// By default glibc serves each of them with a fresh `mmap` and returns it with `munmap`, so every
/// record pays page faults on memory it just gave back; and a thread's heap is trimmed back to the
/// system as soon as 128 KiB are free at its top. Serving such buffers from the heap, and keeping up to
/// 16 MiB free per heap, leaves their pages mapped between records. A user who tunes the allocator
/// (`GLIBC_TUNABLES` or glibc's `MALLOC_…` variables) keeps their own settings.
enum AllocatorTuning {
    /// Allocations up to this size come from a heap rather than a mapping of their own.
    static let mappingThreshold: Int32 = 4 << 20
    /// Free memory a heap keeps at its top rather than give back to the system.
    static let trimThreshold: Int32 = 16 << 20

    /// Sets the thresholds, once, before the process starts its threads.
    static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) {
        #if canImport(Glibc)
        let userTuned = environment.keys.contains { $0 == "GLIBC_TUNABLES" || $0.hasPrefix("MALLOC_") }
        guard !userTuned else { return }
        // `malloc.h` is not in the Glibc module, so `mallopt` is looked up; its options are glibc's ABI.
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(mmapThresholdOption, mappingThreshold)
        _ = mallopt(trimThresholdOption, trimThreshold)
        #endif
    }

    /// glibc's `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD`.
    private static let trimThresholdOption: Int32 = -1
    private static let mmapThresholdOption: Int32 = -3
}
