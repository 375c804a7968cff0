/// Why a payload is not a RoomPlan export the pipeline can read: what is wrong, where in the
/// room it is, and at which byte.
///
/// Its description is one line, such as
/// `expected a number, found a string at walls[2].dimensions[1] (byte 5120)`.
public struct RoomJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of the path from the top of the payload to the problem.
    public enum PathComponent: Sendable, Hashable {
        /// A member of an object, by name.
        case key(String)
        /// An element of an array, by position.
        case index(Int)
    }

    /// What is wrong, such as `expected a number, found a string`.
    public let reason: String
    /// The offset of the byte where the problem was found.
    public let offset: Int
    /// From the top-level object down to the value that is wrong; empty for the top level.
    public var path: [PathComponent] { reversedPath.reversed() }

    // Built innermost first, as the error unwinds out of nested values.
    private var reversedPath: [PathComponent] = []

    init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The same error, seen from the value that contains the one it was found in.
    func inside(_ component: PathComponent) -> RoomJSONError {
        var outer = self
        outer.reversedPath.append(component)
        return outer
    }

    /// The path as `walls[2].dimensions[1]`, or `top level`.
    public var location: String {
        guard !reversedPath.isEmpty else { return "top level" }
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text += (text.isEmpty ? "" : ".") + Self.printable(key)
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// A key as it can appear in a one-line message: shortened, with line breaks and other
    /// control characters escaped.
    private static func printable(_ key: String) -> String {
        let shown = key.count > 40 ? key.prefix(40) + "…" : Substring(key)
        return shown.unicodeScalars.map { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .format: scalar.escaped(asASCII: true)
            default: String(scalar)
            }
        }.joined()
    }

    /// The reason, where it is in the room, and its byte offset, in one line.
    public var description: String {
        "\(reason) at \(location) (byte \(offset))"
    }
}
