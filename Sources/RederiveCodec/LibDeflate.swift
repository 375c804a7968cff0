#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libdeflate's functions, found at run time in the system's shared library.
///
/// libdeflate inflates a whole buffer about twice as fast as zlib's streaming inflate, and computes
/// CRC-32 with carry-less multiplication where the CPU has it. It is optional: the package builds
/// without its headers, and where `libdeflate.so.0` is missing (or `REDERIVE_LIBDEFLATE=0` switches it
/// off) payloads inflate with zlib. ``availability`` loads the library once, on first use, thread-safely.
///
/// ```swift
/// if let libdeflate = LibDeflate.loaded {
///     let decompressor = libdeflate.allocDecompressor()
///     defer { libdeflate.freeDecompressor(decompressor) }
///     ...
/// }
/// ```
package struct LibDeflate: Sendable {
    /// `libdeflate_result`.
    package enum Result: Int32, Sendable {
        case success = 0
        /// The data is not valid deflate data, or fails its checksum.
        case badData = 1
        /// The stream ended with fewer bytes than the caller said it would have.
        case shortOutput = 2
        /// The output buffer is too small.
        case insufficientSpace = 3
    }

    /// `libdeflate_{zlib,deflate,gzip}_decompress_ex(decompressor, in, in_nbytes, out, out_nbytes_avail,
    /// actual_in_nbytes_ret, actual_out_nbytes_ret)`, returning a ``Result`` raw value.
    package typealias Decompress = @convention(c) (
        OpaquePointer?, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int>?
    ) -> Int32
    /// `libdeflate_{zlib,deflate,gzip}_compress(compressor, in, in_nbytes, out, out_nbytes_avail)`:
    /// the compressed size, or 0 when it does not fit.
    package typealias Compress = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?, Int) -> Int
    /// `libdeflate_{zlib,deflate,gzip}_compress_bound(compressor, in_nbytes)`.
    package typealias CompressBound = @convention(c) (OpaquePointer?, Int) -> Int

    /// The name the library was loaded by, such as `libdeflate.so.0`.
    package let name: String

    package let allocDecompressor: @convention(c) () -> OpaquePointer?
    package let freeDecompressor: @convention(c) (OpaquePointer?) -> Void
    package let zlibDecompress: Decompress
    package let deflateDecompress: Decompress
    package let gzipDecompress: Decompress

    /// `libdeflate_alloc_compressor(level)`, level 0 (store) to 12 (smallest).
    package let allocCompressor: @convention(c) (Int32) -> OpaquePointer?
    package let freeCompressor: @convention(c) (OpaquePointer?) -> Void
    package let zlibCompress: Compress
    package let deflateCompress: Compress
    package let gzipCompress: Compress
    package let zlibCompressBound: CompressBound
    package let deflateCompressBound: CompressBound
    package let gzipCompressBound: CompressBound

    /// `libdeflate_crc32(crc, buffer, length)`: the CRC-32 of zlib and gzip, continued from `crc`.
    package let crc32: @convention(c) (UInt32, UnsafeRawPointer?, Int) -> UInt32

    /// The decompress function for a compressed format.
    package func decompress(_ format: PayloadFormat) -> Decompress {
        switch format {
        case .zlib: zlibDecompress
        case .gzip: gzipDecompress
        case .deflate: deflateDecompress
        case .plain: preconditionFailure("plain payloads are not inflated")
        }
    }
}

extension LibDeflate {
    /// Whether libdeflate is in use, and if not, why.
    package enum Availability: Sendable {
        case loaded(LibDeflate)
        /// The environment variable `variable` is set to `value`, which switches libdeflate off.
        case switchedOff(variable: String, value: String)
        /// No library of these names could be loaded, or it lacks a function rederive needs.
        case unavailable(reason: String)
    }

    /// The environment variable that switches libdeflate off when set to `0`, `off`, `no` or `false`.
    package static let switchVariable = "REDERIVE_LIBDEFLATE"

    /// The names the library is looked up by: the runtime package's (Debian's libdeflate0), which needs
    /// no development package.
    #if canImport(Darwin)
    package static let libraryNames = ["libdeflate.0.dylib"]
    #else
    package static let libraryNames = ["libdeflate.so.0"]
    #endif

    /// libdeflate for this process, loaded on first use (a `static let` initializes exactly once, thread-safely).
    package static let availability: Availability = {
        let value = getenv(switchVariable).map { String(cString: $0) }
        return load(names: libraryNames, switchValue: value)
    }()

    /// The loaded library, or nil when payloads inflate with zlib.
    package static var loaded: LibDeflate? {
        if case .loaded(let library) = availability { return library }
        return nil
    }

    /// Loads the first of `names` that the dynamic linker finds and that has every function, unless
    /// `switchValue` (the switch variable's value) turns libdeflate off.
    package static func load(names: [String], switchValue: String?) -> Availability {
        if let switchValue, ["0", "off", "no", "false"].contains(switchValue.lowercased()) {
            return .switchedOff(variable: switchVariable, value: switchValue)
        }
        var problems: [String] = []
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                problems.append(dlerror().map { String(cString: $0) } ?? "\(name) not found")
                continue
            }
            do {
                return .loaded(try LibDeflate(handle: handle, name: name))
            } catch {
                problems.append("\(name): \(error.description)")
                dlclose(handle)
            }
        }
        return .unavailable(reason: problems.joined(separator: "; "))
    }

    /// Looks up every function in an opened library. The handle is never closed: the functions live
    /// as long as the process.
    private init(handle: UnsafeMutableRawPointer, name: String) throws(MissingSymbol) {
        self.name = name
        func find<Function>(_ name: String, as _: Function.Type) throws(MissingSymbol) -> Function {
            guard let symbol = dlsym(handle, name) else { throw MissingSymbol(name: name) }
            return unsafeBitCast(symbol, to: Function.self)
        }
        allocDecompressor = try find("libdeflate_alloc_decompressor", as: (@convention(c) () -> OpaquePointer?).self)
        freeDecompressor = try find("libdeflate_free_decompressor", as: (@convention(c) (OpaquePointer?) -> Void).self)
        zlibDecompress = try find("libdeflate_zlib_decompress_ex", as: Decompress.self)
        deflateDecompress = try find("libdeflate_deflate_decompress_ex", as: Decompress.self)
        gzipDecompress = try find("libdeflate_gzip_decompress_ex", as: Decompress.self)
        allocCompressor = try find("libdeflate_alloc_compressor", as: (@convention(c) (Int32) -> OpaquePointer?).self)
        freeCompressor = try find("libdeflate_free_compressor", as: (@convention(c) (OpaquePointer?) -> Void).self)
        zlibCompress = try find("libdeflate_zlib_compress", as: Compress.self)
        deflateCompress = try find("libdeflate_deflate_compress", as: Compress.self)
        gzipCompress = try find("libdeflate_gzip_compress", as: Compress.self)
        zlibCompressBound = try find("libdeflate_zlib_compress_bound", as: CompressBound.self)
        deflateCompressBound = try find("libdeflate_deflate_compress_bound", as: CompressBound.self)
        gzipCompressBound = try find("libdeflate_gzip_compress_bound", as: CompressBound.self)
        crc32 = try find("libdeflate_crc32", as: (@convention(c) (UInt32, UnsafeRawPointer?, Int) -> UInt32).self)
    }

    /// A function rederive calls is missing from the library (one older than libdeflate 1.0).
    private struct MissingSymbol: Error, CustomStringConvertible {
        let name: String
        var description: String { "it has no \(name)" }
    }
}
