import Foundation

/// Why a file or system call failed, in a few words for a person: never Foundation's dump of an
/// `NSError` (`Error Domain=NSCocoaErrorDomain Code=513 … UserInfo={…}`).
enum UnderlyingReason {
    /// `error` in a few words that follow "cannot read PATH: ".
    static func text(_ error: any Error) -> String {
        if let error = error as? RederiveError { return error.description }
        if let error = error as? POSIXError { return posix(error.code.rawValue) }
        if let error = error as? CocoaError { return cocoa(error) }
        let bridged = error as NSError
        switch bridged.domain {
        case NSPOSIXErrorDomain: return posix(Int32(truncatingIfNeeded: bridged.code))
        case NSCocoaErrorDomain: return cocoa(CocoaError(CocoaError.Code(rawValue: bridged.code), userInfo: bridged.userInfo))
        default: return String(describing: error)
        }
    }

    /// The system's own words for an `errno`: "No space left on device".
    private static func posix(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func cocoa(_ error: CocoaError) -> String {
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return posix(Int32(truncatingIfNeeded: underlying.code))
        }
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return posix(ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return posix(EACCES)
        case .fileWriteOutOfSpace: return posix(ENOSPC)
        case .fileWriteVolumeReadOnly: return posix(EROFS)
        case .fileWriteFileExists: return posix(EEXIST)
        case .fileReadTooLarge: return "the file is too large"
        case .fileReadCorruptFile: return "the file is damaged"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "the file is not in the expected text encoding"
        default: return "file error \(error.code.rawValue)"
        }
    }
}
