import Rederive
import Synchronization

/// What the commands work with: the registered pipelines, their sample sources, the stores `--db` can
/// name and the console.
///
/// Set by ``RederiveCommand/main(pipelines:samples:migrations:stores:)`` for the duration of one invocation,
/// or for the whole process by ``RederiveCommand/bootstrap(pipelines:samples:migrations:stores:mountedAt:)``
/// when rederive's commands are mounted under an app's own command line.
public struct CommandEnvironment: Sendable {
    /// The pipelines the commands can act on.
    public let registry: Registry
    /// How to make synthetic payloads, per pipeline, for `generate` and `demo`.
    public let samples: [SampleSource]
    /// The app's schema migrations, for `rederive migrate`.
    public let migrator: SchemaMigrator?
    /// Where the commands write.
    public let console: Console
    /// Environment variables, for `REDERIVE_DB`.
    public let variables: [String: String]
    /// How a person runs rederive's commands from their shell (`rederive`, `.build/debug/rederive`
    /// when it is not on the PATH, or `myapp data` when mounted); the commands rederive suggests start with it.
    public let invocation: String
    /// The subcommands that lead from the executable to rederive's commands: empty for the `rederive`
    /// tool, `["data"]` when an app mounts them as `myapp data`. `run --isolate` re-invokes the
    /// executable through them.
    public let commandPath: [String]
    /// The openers of the stores `--db` can name, by URL scheme: rederive's own and the app's.
    public let stores: StoreFactory

    /// What the commands work with; every part but the registry has a default for the standalone tool.
    public init(
        registry: Registry,
        samples: [SampleSource] = [],
        migrator: SchemaMigrator? = nil,
        stores: StoreFactory = .standard,
        console: Console = .standard,
        variables: [String: String] = [:],
        invocation: String = "rederive",
        commandPath: [String] = []
    ) {
        self.registry = registry
        self.samples = samples
        self.migrator = migrator
        self.console = console
        self.variables = variables
        self.invocation = invocation
        self.commandPath = commandPath
        self.stores = stores
    }

    /// The environment of the running command: the invocation's own, else the process's bootstrapped
    /// one, else one without pipelines.
    static var current: CommandEnvironment {
        scoped ?? bootstrapped.withLock { $0 } ?? CommandEnvironment(registry: Registry())
    }

    @TaskLocal static var scoped: CommandEnvironment?
    static let bootstrapped = Mutex<CommandEnvironment?>(nil)
}
