import Rederive
import RederiveSQLite

/// What the commands work with: the registered pipelines, their sample sources and the console.
///
/// Set by ``RederiveCommand/main(pipelines:samples:)`` for the duration of one invocation.
public struct CommandEnvironment: Sendable {
    public let registry: Registry
    public let samples: [SampleSource]
    /// The app's schema migrations, for `rederive migrate`.
    public let migrator: SchemaMigrator?
    public let console: Console
    /// Environment variables, for `REDERIVE_DB`.
    public let variables: [String: String]

    public init(
        registry: Registry,
        samples: [SampleSource] = [],
        migrator: SchemaMigrator? = nil,
        console: Console = .standard,
        variables: [String: String] = [:]
    ) {
        self.registry = registry
        self.samples = samples
        self.migrator = migrator
        self.console = console
        self.variables = variables
    }

    @TaskLocal static var current = CommandEnvironment(registry: Registry())
}
