/// An app's schema migrations, in the order they apply: what the app registers, once, for every store.
///
/// A store that is a ``SchemaMigrationApplier`` applies them; `rederive migrate` applies those given to
/// `RederiveCommand.main(pipelines:samples:migrations:)`.
public struct SchemaMigrator: Sendable {
    /// The migrations, in order.
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

    /// The migrations up to `target` not in `applied`, in order, once checked that the store runs every
    /// one of them (`runs` says which store-specific steps it does): a store never starts a list it
    /// cannot finish. `database` names the store in the refusal.
    package func pending(
        through target: String?, applied: Set<String>, on database: String, runs: (any StoreSpecificStep) -> Bool
    ) throws(RederiveError) -> [SchemaMigration] {
        let pending = try migrations(through: target).filter { !applied.contains($0.id) }
        for migration in pending {
            if case .storeSpecific(let step) = migration.step, !runs(step) {
                throw RederiveError(
                    .invalidArgument,
                    "schema migration \"\(migration.id)\" is \(step.summary), and cannot run on \(database); nothing was applied (write it as .sql or .backfill to run it on every store)"
                )
            }
        }
        return pending
    }
}
