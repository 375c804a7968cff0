import ArgumentParser
import Rederive

/// `rederive invalidate`: mark records stale without a version bump.
struct InvalidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invalidate",
        abstract: "Mark records stale so that the next run derives them again.",
        discussion: "Without --processor, every processor of the pipeline; without --key, every record."
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: ArgumentHelp("Invalidate this processor's values (repeatable).", valueName: "name"))
    var processor: [String] = []

    @Option(help: ArgumentHelp("Invalidate the record with this key (repeatable).", valueName: "key"))
    var key: [String] = []

    @Flag(help: "Also invalidate every processor that derives from the named ones, directly or not.")
    var downstream = false

    func validate() throws {
        if downstream && processor.isEmpty {
            throw ValidationError("--downstream needs --processor: without it every processor is invalidated already")
        }
    }

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let store = try await database.openForWriting()
        var pipelines = try database.pipelines()
        if !processor.isEmpty {
            try pipelines.requireProcessors(named: processor)
            pipelines = pipelines.filter { pipeline in processor.contains { pipeline.processor(named: $0) != nil } }
        }
        for pipeline in pipelines {
            var names = processor.isEmpty ? nil : processor.filter { pipeline.processor(named: $0) != nil }
            if downstream, let named = names {
                var seen = Set(named)
                names = named + named.flatMap(pipeline.dependents(of:)).filter { seen.insert($0).inserted }
            }
            let marked = try await store.invalidate(pipeline, processors: names, keys: key.isEmpty ? nil : key)
            let which = names ?? pipeline.processors.map(\.name)
            console.line("marked \(Format.count(marked, "record")) of \(pipeline.table) stale for \(which.joined(separator: ", "))")
        }
    }
}
