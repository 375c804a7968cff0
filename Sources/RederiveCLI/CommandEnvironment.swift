import Rederive

/// What the commands work with: the registered pipelines, their sample sources and the console.
///
/// Set by ``RederiveCommand/main(pipelines:samples:)`` for the duration of one invocation.
public struct CommandEnvironment: Sendable {
    public let registry: Registry
    public let samples: [SampleSource]
    public let console: Console
    /// Environment variables, for `REDERIVE_DB`.
    public let variables: [String: String]

    public init(registry: Registry, samples: [SampleSource] = [], console: Console = .standard, variables: [String: String] = [:]) {
        self.registry = registry
        self.samples = samples
        self.console = console
        self.variables = variables
    }

    @TaskLocal static var current = CommandEnvironment(registry: Registry())
}
