import Rederive
#if PostgreSQL
import RederivePostgres
#endif

/// Opens PostgreSQL databases by URL: `postgres://user@host:port/database?sslmode=require`.
///
/// Known in every build, so that a build without the PostgreSQL trait answers a PostgreSQL URL by
/// naming the build that reads it, rather than taking it for a file or an unknown scheme.
public struct PostgresOpener: StoreOpener {
    /// The opener rederive registers for `postgres` and `postgresql`.
    public init() {}

    /// `postgres` and `postgresql`.
    public var schemes: [String] { ["postgres", "postgresql"] }

    /// The database as its location describes it, without a password.
    public func name(of location: String, variables: [String: String]) -> String {
        #if PostgreSQL
        return (try? PostgresLocation(url: location, environment: variables).description) ?? PostgresSQLRedaction.redacted(location)
        #else
        return PostgresSQLRedaction.redacted(location)
        #endif
    }

    /// The URL with its parameters, such as `sslmode`, and its password masked.
    public func argument(for location: String) -> String { PostgresSQLRedaction.redacted(location) }

    /// Workers on many hosts share one run of a PostgreSQL database.
    public var sharesRunsAcrossProcesses: Bool { true }

    /// The warning for a password written into the URL, which `ps` shows; `$PGPASSWORD` and
    /// `~/.pgpass` keep it out of sight.
    public func exposedSecretWarning(in location: String) -> String? {
        CommandLinePassword.isIn(location) ? CommandLinePassword.warning : nil
    }

    /// Connects, creating rederive's bookkeeping only where the mode prepares (previews included, as
    /// a migration's dry run needs it), and prepares the request's pipelines when writing or preparing.
    /// Reading creates nothing: a database without rederive's tables, or with an older version of
    /// them, is an error in one line.
    public func open(_ request: StoreRequest) async throws -> any CommandStore {
        #if PostgreSQL
        let location = try PostgresLocation(url: request.location, environment: request.variables)
        if let warning = location.passwordFileWarning {
            request.warn("warning: \(warning)")
        }
        let (creatingBookkeeping, preparing) = switch request.mode {
        case .reading: (false, false)
        case .previewing: (true, false)
        case .writing: (false, true)
        case .preparing: (true, true)
        }
        let store = try await PostgresStore(
            location: location, logger: request.logger ?? PostgresStore.silent, creatingBookkeeping: creatingBookkeeping
        )
        if preparing {
            for pipeline in request.pipelines {
                try await store.prepare(pipeline)
            }
        }
        return store
        #else
        throw RederiveError(
            .invalidArgument,
            "this rederive was built without PostgreSQL support; build it with `swift build --traits PostgreSQL` to use \(name(of: request.location, variables: request.variables))"
        )
        #endif
    }
}
