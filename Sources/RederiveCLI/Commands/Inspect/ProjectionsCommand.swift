import ArgumentParser
import Rederive

/// `rederive projections`: how many records have a current projection, or `--drop` them all.
struct ProjectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projections",
        abstract: "Show how many records have a current projection, or drop every projection with --drop.",
        discussion: """
            A pipeline that declares a projection keeps, beside each record's values, the part of its decoded \\
            payload that the processors read; a bump of a processor that reads the payload derives from it \\
            without inflating the payload. --drop deletes them all; the next run derives from payloads and \\
            writes them again. Values and stamps are untouched.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Flag(help: "Delete every stored projection of the pipelines.")
    var drop = false

    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let pipelines = try database.pipelines().filter { $0.projectionVersion != nil }
        let store = drop ? try await database.openForWriting() : try await database.openForReading()
        guard let projections = store.projectionStore else {
            throw RederiveError(.invalidArgument, "\(database.databaseName) keeps no projections")
        }
        if pipelines.isEmpty {
            console.line("no pipeline declares a projection: every record is derived from its payload")
        }
        for pipeline in pipelines {
            if drop {
                let dropped = try await projections.dropProjections(pipeline)
                console.line("dropped \(Format.count(dropped, "projection")) of \(pipeline.name); the next run writes them again")
            } else {
                let current = try await projections.currentProjectionCount(pipeline)
                console.line("\(pipeline.name): \(Format.count(current, "record")) with a current projection (version \(pipeline.projectionVersion ?? 0))")
            }
        }
    }
}
