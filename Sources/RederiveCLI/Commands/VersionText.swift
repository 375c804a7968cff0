import Rederive
import RederiveCodec

/// What `rederive --version` prints: rederive's version, and which library inflates payloads.
enum VersionText {
    static var text: String {
        "rederive \(RederiveVersion.current)\ninflater: \(inflater)"
    }

    /// `libdeflate (libdeflate.so.0), with zlib 1.2.13 for damaged payloads`, or zlib and why.
    static var inflater: String {
        let zlib = "zlib \(InflateLibrary.zlibVersion)"
        switch LibDeflate.availability {
        case .loaded(let libdeflate):
            return "libdeflate (\(libdeflate.name)), with \(zlib) for damaged payloads"
        case .switchedOff(let variable, let value):
            return "\(zlib) (libdeflate switched off by \(variable)=\(value))"
        case .unavailable(let reason):
            return "\(zlib) (libdeflate not loaded: \(reason); the libdeflate0 package inflates about twice as fast)"
        }
    }
}
