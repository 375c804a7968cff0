/// Checks that bytes are one well-formed JSON document (RFC 8259, UTF-8), and says where and why not.
///
/// It only checks the syntax with a ``JSONCursor``, building nothing, so it runs at memory speed and
/// nesting of any depth costs one byte of memory per level, never a thread's stack. Any value may stand
/// at the top, as `JSONSerialization` allows with `.fragmentsAllowed`; a UTF-8 byte order mark is skipped.
///
/// ```swift
/// if let problem = JSONSyntax.problem(in: bytes) {
///     print("not valid JSON \(problem)")   // "at line 3, column 14 (byte 52): expected ',' or '}' …"
/// }
/// ```
package enum JSONSyntax {
    /// Why bytes are not JSON, and where: the first byte that cannot continue a document.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        /// The offset of the offending byte (the length of the input when it ended too early).
        package let offset: Int
        /// 1-based line of that byte.
        package let line: Int
        /// 1-based column of that byte, in characters.
        package let column: Int
        /// What is wrong, such as `expected ',' or '}' after a member, found '"'`.
        package let reason: String

        /// `at line 3, column 14 (byte 52): ` and the reason.
        package var description: String { "at line \(line), column \(column) (byte \(offset)): \(reason)" }
    }

    /// The first syntax error in `bytes`, or nil when they hold exactly one JSON value.
    package static func problem(in bytes: [UInt8]) -> Problem? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer, depthLimit: .max)
            do throws(JSONError) {
                try cursor.skipDocument()
                return nil
            } catch {
                let (line, column) = position(of: error.offset, in: buffer)
                return Problem(offset: error.offset, line: line, column: column, reason: error.reason)
            }
        }
    }

    /// The 1-based line and character column of byte `offset`, counted only once an error is found.
    private static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Continuation bytes belong to the character their lead byte started.
                column += 1
            }
        }
        return (line, column)
    }
}
