import Foundation
import GRDB
import Rederive

/// An app's schema migrations, in the order they apply.
public struct SchemaMigrator: Sendable {
    public let migrations: [SchemaMigration]

    /// Checks that identifiers are unique and not empty.
    public init(_ migrations: [SchemaMigration]) throws(RederiveError) {
        var seen: Set<String> = []
        for migration in migrations {
            if migration.id.isEmpty {
                throw RederiveError(.invalidRegistration, "a schema migration has an empty identifier")
            }
            guard seen.insert(migration.id).inserted else {
                throw RederiveError(.invalidRegistration, "schema migration \"\(migration.id)\" is registered twice")
            }
        }
        self.migrations = migrations
    }

    /// The migrations up to and including `target` (all when nil).
    public func migrations(through target: String?) throws(RederiveError) -> ArraySlice<SchemaMigration> {
        guard let target else { return migrations[...] }
        guard let index = migrations.firstIndex(where: { $0.id == target }) else {
            throw RederiveError(
                .unknownName,
                "no schema migration \"\(target)\" (registered: \(migrations.map(\.id).joined(separator: ", ")))"
            )
        }
        return migrations[...index]
    }
}
