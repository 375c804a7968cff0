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
    /// How a person runs this executable from their shell (`rederive`, or `.build/debug/rederive` when
    /// it is not on the PATH); the commands rederive suggests start with it.
    public let invocation: String

    public init(
        registry: Registry,
        samples: [SampleSource] = [],
        migrator: SchemaMigrator? = nil,
        console: Console = .standard,
        variables: [String: String] = [:],
        invocation: String = "rederive"
    ) {
        self.registry = registry
        self.samples = samples
        self.migrator = migrator
        self.console = console
        self.variables = variables
        self.invocation = invocation
    }

    @TaskLocal static var current = CommandEnvironment(registry: Registry())
}
