/// Why text is not the JSON a reader expected: what is wrong, the offset of the byte where it was
/// found, and the path from the top-level value down to the value that is wrong.
@usableFromInline package struct JSONError: Error, Sendable, Hashable {
    /// One step of the path from the top-level value to the problem.
    @usableFromInline package enum PathComponent: Sendable, Hashable {
        /// An object's member, by its key.
        case key(String)
        /// An array's element, by its index.
        case index(Int)
    }

    /// What is wrong, such as `expected a number, found a string`.
    @usableFromInline package let reason: String
    /// The offset of the byte where the problem was found.
    @usableFromInline package let offset: Int
    /// From the top-level value down to the value that is wrong; empty for the top level.
    @usableFromInline package var path: [PathComponent] { reversedPath.reversed() }

    // Built innermost first, as the error unwinds out of nested values.
    @usableFromInline var reversedPath: [PathComponent] = []

    /// An error found at byte `offset` of the top-level value.
    @usableFromInline package init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The same error, seen from the value that contains the one it was found in.
    @inlinable
    package func inside(_ component: PathComponent) -> JSONError {
        var outer = self
        outer.reversedPath.append(component)
        return outer
    }
}
