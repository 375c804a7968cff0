import RederiveJSON

/// Why a payload is not a RoomPlan export the pipeline can read: what is wrong, where in the
/// room it is, and at which byte.
///
/// Its description is one line, such as
/// `expected a number, found a string at walls[2].dimensions[1] (byte 5120)`.
public struct RoomJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of the path from the top of the payload to the problem.
    public enum PathComponent: Sendable, Hashable {
        /// An object's member, by its key.
        case key(String)
        /// An array's element, by its index.
        case index(Int)
    }

    /// What is wrong, such as `expected a number, found a string`.
    public let reason: String
    /// The offset of the byte where the problem was found.
    public let offset: Int
    /// From the top-level object down to the value that is wrong; empty for the top level.
    public let path: [PathComponent]

    /// The error the JSON scanner reported.
    init(_ error: JSONError) {
        reason = error.reason
        offset = error.offset
        path = error.path.map { component in
            switch component {
            case .key(let key): .key(key)
            case .index(let index): .index(index)
            }
        }
    }

    /// The path as `walls[2].dimensions[1]`, or `top level`.
    public var location: String {
        guard !path.isEmpty else { return "top level" }
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

    /// The reason, the location and the byte, on one line.
    public var description: String {
        "\(reason) at \(location) (byte \(offset))"
    }
}
