import Foundation
import RederiveCodec
import Testing

@Suite("LibDeflate: the optional fast path, loaded at run time")
struct LibDeflateTests {
    /// Whether the system's dynamic linker finds libdeflate at all, asked without the loader.
    static let systemHasLibDeflate: Bool = {
        guard let handle = dlopen(LibDeflate.libraryNames[0], RTLD_NOW) else { return false }
        dlclose(handle)
        return true
    }()

    @Test func loadsWheneverTheSystemHasTheLibraryAndNothingSwitchesItOff() {
        let switchedOff = ProcessInfo.processInfo.environment[LibDeflate.switchVariable].map { ["0", "off", "no", "false"].contains($0.lowercased()) } ?? false
        #expect((LibDeflate.loaded != nil) == (Self.systemHasLibDeflate && !switchedOff))
        #expect(InflateLibrary.preferred == (LibDeflate.loaded != nil ? .libdeflate : .zlib))
        #expect(InflateLibrary.available.contains(.zlib))
    }

    @Test(arguments: ["0", "off", "OFF", "no", "false"])
    func theEnvironmentSwitchTurnsItOff(value: String) {
        guard case .switchedOff(let variable, let seen) = LibDeflate.load(names: LibDeflate.libraryNames, switchValue: value) else {
            Issue.record("\(LibDeflate.switchVariable)=\(value) did not switch libdeflate off")
            return
        }
        #expect(variable == "REDERIVE_LIBDEFLATE")
        #expect(seen == value)
    }

    @Test(.enabled(if: systemHasLibDeflate), arguments: [nil, "1", "yes"])
    func anyOtherSwitchValueLoadsIt(value: String?) {
        guard case .loaded(let libdeflate) = LibDeflate.load(names: LibDeflate.libraryNames, switchValue: value) else {
            Issue.record("libdeflate did not load with \(LibDeflate.switchVariable)=\(value ?? "(unset)")")
            return
        }
        #expect(libdeflate.name == LibDeflate.libraryNames[0])
    }

    @Test func aMissingLibrarySaysWhyAndLeavesZlib() {
        guard case .unavailable(let reason) = LibDeflate.load(names: ["libdeflate-that-is-not-there.so.0"], switchValue: nil) else {
            Issue.record("a library that does not exist loaded")
            return
        }
        #expect(reason.contains("libdeflate-that-is-not-there.so.0"))
    }

    @Test(.enabled(if: systemHasLibDeflate))
    func aLibraryWithoutLibdeflatesFunctionsIsRefusedNamingTheFirstMissing() {
        // zlib is a shared library that the dynamic linker finds, but it has none of libdeflate's functions.
        guard case .unavailable(let reason) = LibDeflate.load(names: ["libz.so.1"], switchValue: nil) else {
            Issue.record("zlib passed for libdeflate")
            return
        }
        #expect(reason == "libz.so.1: it has no libdeflate_alloc_decompressor")
    }

    @Test(.enabled(if: LibDeflate.loaded != nil))
    func itsCompressorWritesWhatTheCodecReads() throws {
        // PayloadCompressor uses the zlib one; this checks that every function found is the right one.
        let libdeflate = try #require(LibDeflate.loaded)
        let json = Array(String(repeating: #"{"wall":1.25,"height":2.5},"#, count: 2_000).utf8)
        let compressor = try #require(libdeflate.allocCompressor(6))
        defer { libdeflate.freeCompressor(compressor) }
        for (format, compress, bound) in [
            (PayloadFormat.zlib, libdeflate.zlibCompress, libdeflate.zlibCompressBound),
            (.deflate, libdeflate.deflateCompress, libdeflate.deflateCompressBound),
            (.gzip, libdeflate.gzipCompress, libdeflate.gzipCompressBound),
        ] {
            let capacity = bound(compressor, json.count)
            var output = [UInt8](repeating: 0, count: capacity)
            let written = json.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { compress(compressor, source.baseAddress, source.count, $0.baseAddress, capacity) }
            }
            #expect(written > 0 && written < json.count / 10)
            let stored = Array(output.prefix(written))
            #expect(PayloadCodec.detect(stored) == format)
            #expect(try PayloadCodec(library: .zlib).decode(stored) == json)
        }
    }
}
