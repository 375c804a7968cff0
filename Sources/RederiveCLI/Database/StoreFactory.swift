import Foundation
import Rederive

/// The one place the command line opens stores: openers keyed by the URL scheme of `--db`.
///
/// A location of the form `scheme://…` names its opener by its scheme, as does `scheme:…` for a
/// scheme that is registered (`sqlite:rooms.sqlite`); anything else is a path, opened by the opener
/// of `sqlite`. A scheme that no opener reads is refused, with the list of those that are known.
///
/// ```swift
/// await RederiveCommand.main(pipelines: [MyApp.notesPipeline], stores: [MyStoreOpener()])
/// ```
public struct StoreFactory: Sendable {
    /// Where a location leads: the scheme it names (`sqlite` for a path) and the opener of that scheme.
    public struct Address: Sendable {
        /// The scheme, lowercased.
        public let scheme: String
        /// The opener registered for it.
        public let opener: any StoreOpener
    }

    /// The scheme a plain path is opened with.
    public static let pathScheme = "sqlite"

    /// Every known scheme, in the order it was first registered.
    public let schemes: [String]
    private let openers: [String: any StoreOpener]

    /// Openers by their schemes; a later opener of a scheme replaces an earlier one.
    public init(_ openers: [any StoreOpener]) {
        var schemes: [String] = []
        var byScheme: [String: any StoreOpener] = [:]
        for opener in openers {
            for scheme in opener.schemes.map({ $0.lowercased() }) {
                if byScheme[scheme] == nil { schemes.append(scheme) }
                byScheme[scheme] = opener
            }
        }
        self.schemes = schemes
        self.openers = byScheme
    }

    /// rederive's own stores: SQLite files and PostgreSQL URLs (the latter known in every build, and
    /// opened only in a build with the PostgreSQL trait).
    public static let standard = StoreFactory([SQLiteOpener(), PostgresOpener()])

    /// These openers and `more`, which replace these for the schemes they share.
    public func adding(_ more: [any StoreOpener]) -> StoreFactory {
        StoreFactory(schemes.compactMap { openers[$0] } + more)
    }

    /// The scheme and opener of `location`.
    ///
    /// - Throws: `RederiveError/Code/invalidArgument` for a `scheme://` URL of a scheme no opener
    ///   reads, naming the location without its password and listing the known schemes.
    public func address(of location: String) throws -> Address {
        let scheme = Self.urlScheme(of: location)
            ?? Self.schemePrefix(of: location).flatMap { openers[$0] == nil ? nil : $0 }
            ?? Self.pathScheme
        guard let opener = openers[scheme] else { throw unknownScheme(scheme, in: location) }
        return Address(scheme: scheme, opener: opener)
    }

    /// The scheme of a `scheme://` URL, lowercased; nil for anything else.
    static func urlScheme(of location: String) -> String? {
        guard let separator = location.range(of: "://"), let scheme = schemePrefix(of: location),
              scheme.count == location.distance(from: location.startIndex, to: separator.lowerBound)
        else { return nil }
        return scheme
    }

    /// The letters before the first `:`, lowercased, when they can be a URL scheme (RFC 3986: a letter,
    /// then letters, digits, `+`, `-` and `.`).
    private static func schemePrefix(of location: String) -> String? {
        guard let colon = location.firstIndex(of: ":") else { return nil }
        let scheme = location[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    private func unknownScheme(_ scheme: String, in location: String) -> RederiveError {
        let urls = schemes.filter { $0 != Self.pathScheme }.map { "\($0)://" }
        let choice = urls.isEmpty ? "" : ", or a \(Self.listed(urls, joinedBy: "or")) URL"
        return RederiveError(
            .invalidArgument,
            "\(PostgresSQLRedaction.redacted(location)) is a \(scheme):// URL, which no rederive store reads; give a SQLite file path\(choice) (known schemes: \(schemes.joined(separator: ", ")))"
        )
    }

    /// `a`, `a or b`, `a, b or c`.
    private static func listed(_ items: [String], joinedBy word: String) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(word) \(last)"
    }
}
