/// A position in the UTF-8 text of a JSON document (RFC 8259), read in a single forward pass: the one
/// JSON scanner of the package, behind RoomScan's decoder and `import`'s check of files.
///
/// The cursor reads values the caller asks for and skips the rest without materialising them,
/// checking what it skips against the JSON grammar. Every read checks bounds, so truncated or
/// hostile text only ever throws. Nesting deeper than ``depthLimit`` is rejected, and skipping
/// uses a heap stack rather than recursion (a byte per level), so depth cannot exhaust the call stack.
///
/// Its messages name what was expected and what was found instead: the kind of value where a value of
/// some type was expected (`expected a number, found a string`), the character elsewhere
/// (`expected ',' or '}' after a member, found '"'`).
///
/// Declarations are inlinable: the decoders that read with it are in other modules, and its loops are
/// their inner loops. The package's types are `@usableFromInline` too: without it, their importers see
/// no inlinable body of a package type's members, and call them unspecialized (a generic `readArray`
/// then looked up its array's type metadata for every list of numbers).
@usableFromInline package struct JSONCursor {
    /// The deepest nesting of arrays and objects that `JSONDecoder` accepts, counting the top-level value as 1.
    @usableFromInline package static let decoderDepthLimit = 512

    /// The text.
    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    @usableFromInline package var position = 0
    /// The deepest nesting of arrays and objects accepted, counting the top-level value as 1.
    @usableFromInline package let depthLimit: Int
    /// The open containers of the value being skipped: `true` for an object.
    @usableFromInline var skipStack: [Bool] = []

    /// A cursor at the start of `bytes`, past a UTF-8 byte order mark (which `JSONDecoder` allows too).
    @inlinable
    package init(_ bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int = JSONCursor.decoderDepthLimit) {
        self.bytes = bytes
        self.depthLimit = depthLimit
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
    }

    /// The next byte, or 0 at the end of the text. A 0 byte is never valid outside a string, so
    /// the callers treat both alike and the messages tell them apart.
    @inlinable @inline(__always)
    package var current: UInt8 {
        position < bytes.count ? bytes[position] : 0
    }

    /// Moves past spaces, tabs, line feeds and carriage returns.
    @inlinable @inline(__always)
    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case .space, .tab, .lineFeed, .carriageReturn: position += 1
            default: return
            }
        }
    }

    /// Checks that nothing but whitespace follows the top-level value.
    @inlinable
    package mutating func expectEnd() throws(JSONError) {
        skipWhitespace()
        guard position == bytes.count else { throw failure("\(foundCharacter) after the end of the document") }
    }

    /// Checks that the text is one JSON value of any kind, followed only by whitespace.
    @inlinable
    package mutating func skipDocument() throws(JSONError) {
        try skipValue(depth: 0)
        try expectEnd()
    }

    /// Reads `null` if it is next.
    @inlinable
    package mutating func readNull() throws(JSONError) -> Bool {
        skipWhitespace()
        guard current == UInt8(ascii: "n") else { return false }
        try expectLiteral("null")
        return true
    }

    /// Reads exactly the given keyword; a mismatch is reported at its first wrong byte.
    @inlinable
    package mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let start = position
        let matches = position + count <= bytes.count && literal.withUTF8Buffer { expected in
            expected.indices.allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { throw literalMismatch(literal) }
        position += count
    }

    /// Where and how the text departs from `literal`, which starts at the current position.
    @usableFromInline
    mutating func literalMismatch(_ literal: StaticString) -> JSONError {
        let start = position
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard position < bytes.count, bytes[position] == expected else { break }
            position += 1
        }
        return failure(expectedSyntax: position == start ? "a value" : "\"\(literal)\"")
    }
}
