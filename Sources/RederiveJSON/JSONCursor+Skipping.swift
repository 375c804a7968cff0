/// Skipping a whole value of any shape, checked against the JSON grammar.
extension JSONCursor {
    /// Moves past one value, however nested, without recursion.
    ///
    /// - Parameter depth: How many containers enclose the value; the value's own containers
    ///   count on from there towards ``depthLimit``.
    @inlinable
    package mutating func skipValue(depth: Int) throws(JSONError) {
        skipStack.removeAll(keepingCapacity: true)
        while true {
            // A value starts here.
            skipWhitespace()
            switch current {
            case .openBrace, .openBracket:
                let isObject = current == .openBrace
                guard depth + skipStack.count < depthLimit else {
                    throw failure("nesting deeper than \(depthLimit) levels")
                }
                position += 1
                skipWhitespace()
                if current == (isObject ? .closeBrace : .closeBracket) {
                    position += 1
                } else {
                    skipStack.append(isObject)
                    if isObject { try skipKey() }
                    continue
                }
            case .quote:
                _ = try scanString()
            case .minus, .digitZero ... .digitNine:
                try skipNumber()
            case UInt8(ascii: "t"):
                try expectLiteral("true")
            case UInt8(ascii: "f"):
                try expectLiteral("false")
            case UInt8(ascii: "n"):
                try expectLiteral("null")
            default:
                throw failure(expected: "a value")
            }
            // A value ended here: close containers until one has another member or element.
            while let isObject = skipStack.last {
                skipWhitespace()
                if current == .comma {
                    position += 1
                    if isObject { try skipKey() }
                    break
                }
                guard current == (isObject ? .closeBrace : .closeBracket) else { throw unclosed(isObject: isObject) }
                position += 1
                skipStack.removeLast()
            }
            if skipStack.isEmpty { return }
        }
    }

    /// Moves past an object member's key and its colon.
    @inlinable
    mutating func skipKey() throws(JSONError) {
        skipWhitespace()
        guard current == .quote else { throw failure(expectedSyntax: "a member name in double quotes") }
        _ = try scanString()
        skipWhitespace()
        guard current == .colon else { throw failure(expectedSyntax: "':' after a member name") }
        position += 1
    }
}
