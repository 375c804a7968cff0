import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `rederive generate`: a realistic synthetic corpus.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a realistic synthetic corpus into the database, some of it deliberately broken.",
        discussion: """
            Records are keyed synthetic-SEED-INDEX; the same seed writes the same payloads, so running it \
            again changes nothing. Broken records have truncated or corrupt streams, random bytes, or JSON \
            that is invalid or of the wrong shape.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(parsing: .unconditional, help: "How many records to write.")
    var count: Int

    @Option(parsing: .unconditional, help: "Seed of the corpus.")
    var seed: UInt64 = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Share of records to break, from 0 to 1.", valueName: "fraction"))
    var corrupt: Double = 0

    func validate() throws {
        try ValueBounds.records.check(count, "--count")
        if !(0...1).contains(corrupt) { throw ValidationError("--corrupt must be between 0 and 1") }
    }

    func run() async throws {
        let environment = database.environment
        let pipeline = try database.singlePipeline(for: "generate")
        guard let source = environment.samples.first(where: { $0.pipeline == pipeline.name }) else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no sample generator")
        }
        let store = try await database.openPreparing(creating: true)
        let corpus = SyntheticCorpus(source: source, pipeline: pipeline, seed: seed, corruptFraction: corrupt)
        let outcome = try await corpus.write(count: count, to: store)
        environment.console.line(
            "generated \(Format.count(count, "record")) in \(pipeline.table) (seed \(seed)): "
                + "\(Format.count(outcome.counts.inserted)) new, \(Format.count(outcome.counts.replaced)) replaced, "
                + "\(Format.count(outcome.counts.unchanged)) unchanged; \(Format.count(outcome.brokenTotal)) deliberately broken"
        )
    }
}
