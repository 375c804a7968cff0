/// Arrays and objects: their punctuation, and reading them element by element.
extension JSONCursor {
    /// Reads the `{` that opens an object; returns whether the object has members, and if not
    /// reads its `}` too.
    @inlinable
    package mutating func openObject() throws(JSONError) -> Bool {
        skipWhitespace()
        guard current == .openBrace else { throw failure(expected: "an object") }
        position += 1
        skipWhitespace()
        guard current == .closeBrace else { return true }
        position += 1
        return false
    }

    /// After a member's value: reads the `,` before the next member and returns `true`, or the
    /// `}` that closes the object and returns `false`.
    @inlinable
    package mutating func nextMember() throws(JSONError) -> Bool {
        skipWhitespace()
        switch current {
        case .comma:
            position += 1
            return true
        case .closeBrace:
            position += 1
            return false
        default:
            throw unclosed(isObject: true)
        }
    }

    /// Reads the `[` that opens an array; returns whether the array has elements, and if not
    /// reads its `]` too.
    @inlinable
    package mutating func openArray() throws(JSONError) -> Bool {
        skipWhitespace()
        guard current == .openBracket else { throw failure(expected: "an array") }
        position += 1
        skipWhitespace()
        guard current == .closeBracket else { return true }
        position += 1
        return false
    }

    /// After an element: reads the `,` before the next element and returns `true`, or the `]`
    /// that closes the array and returns `false`.
    @inlinable
    package mutating func nextElement() throws(JSONError) -> Bool {
        skipWhitespace()
        switch current {
        case .comma:
            position += 1
            return true
        case .closeBracket:
            position += 1
            return false
        default:
            throw unclosed(isObject: false)
        }
    }

    /// The error for a container whose value is followed by neither a comma nor its closing bracket.
    @usableFromInline
    func unclosed(isObject: Bool) -> JSONError {
        let expected = switch (isObject, position < bytes.count) {
        case (true, true): "',' or '}' after a member"
        case (true, false): "',' or '}' to continue the object"
        case (false, true): "',' or ']' after an element"
        case (false, false): "',' or ']' to continue the array"
        }
        return failure(expectedSyntax: expected)
    }

    /// Reads an object, calling `readMember` with each key once the cursor is at its value;
    /// `readMember` must read or skip the value. Errors are reported inside the member's key.
    @inlinable
    package mutating func readObject(
        _ readMember: (inout JSONCursor, Key) throws(JSONError) -> Void
    ) throws(JSONError) {
        guard try openObject() else { return }
        repeat {
            let key = try readKey()
            do throws(JSONError) {
                try readMember(&self, key)
            } catch {
                throw error.inside(.key(name(of: key)))
            }
        } while try nextMember()
    }

    /// Reads an array, reading each element with `readElement`. Errors are reported inside the
    /// element's index.
    @inlinable
    package mutating func readArray<Element>(
        reservingCapacity capacity: Int = 0,
        _ readElement: (inout JSONCursor) throws(JSONError) -> Element
    ) throws(JSONError) -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(capacity)
        guard try openArray() else { return elements }
        repeat {
            do throws(JSONError) {
                elements.append(try readElement(&self))
            } catch {
                throw error.inside(.index(elements.count))
            }
        } while try nextElement()
        return elements
    }
}
