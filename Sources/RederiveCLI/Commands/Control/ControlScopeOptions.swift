import ArgumentParser
import Rederive

/// `--db`, `--pipeline` and `--processor` of `pause`, `resume` and `cancel`: the work they act on.
struct ControlScopeOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("Act only on the work that derives this processor.", valueName: "name"))
    var processor: String?

    /// One scope per pipeline acted on: with `--processor`, the pipelines that have it (an unknown
    /// name is an error naming the registered ones).
    func scopes() throws -> [ControlScope] {
        let pipelines = try database.pipelines()
        guard let processor else {
            return pipelines.map { ControlScope(pipeline: $0.name) }
        }
        try pipelines.requireProcessors(named: [processor])
        return pipelines.filter { $0.processor(named: processor) != nil }.map { ControlScope(pipeline: $0.name, processor: processor) }
    }

    /// How the commands name `scope`'s work: `room_scans` or `room_scans (processor floor_area)`.
    static func describe(_ scope: ControlScope) -> String {
        scope.processor.map { "\(scope.pipeline) (processor \($0))" } ?? scope.pipeline
    }

    /// The command that undoes a pause, as a message suggests it.
    func command(_ name: String) -> String {
        var words = [database.environment.invocation, name]
        if database.path != nil { words += ["--db", Invocation.quoted(database.databaseArgument)] }
        if let pipeline = database.pipeline { words += ["--pipeline", Invocation.quoted(pipeline)] }
        if let processor { words += ["--processor", Invocation.quoted(processor)] }
        return words.joined(separator: " ")
    }
}
