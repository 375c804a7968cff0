import ArgumentParser
import Rederive

/// `rederive generate`: a realistic synthetic corpus.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a realistic synthetic corpus into the database, some of it deliberately broken.",
        discussion: """
            Records are keyed synthetic-SEED-INDEX; the same seed writes the same payloads, so running it \
            again changes nothing. Broken records have truncated or corrupt streams, random bytes, or JSON \
            that is invalid or of the wrong shape. At most 1,000,000 records; the size is estimated first, a \
            corpus the disk cannot hold is refused, and from 10,000 records on, progress is shown.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(parsing: .unconditional, help: "How many records to write.")
    var count: Int

    @Option(parsing: .unconditional, help: "Seed of the corpus.")
    var seed: UInt64 = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Share of records to break, from 0 to 1.", valueName: "fraction"))
    var corrupt: Double = 0

    /// From this many records on, generation announces its size and reports its progress.
    static let progressFrom = 10_000

    func validate() throws {
        try ValueBounds.generatedRecords.check(count, "--count")
        if !(0...1).contains(corrupt) { throw ValidationError("--corrupt must be between 0 and 1") }
    }

    func run() async throws {
        let environment = database.environment
        let pipeline = try database.singlePipeline(for: "generate")
        guard let source = environment.samples.first(where: { $0.pipeline == pipeline.name }) else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no sample generator")
        }
        let corpus = SyntheticCorpus(source: source, pipeline: pipeline, seed: seed, corruptFraction: corrupt)
        // Estimated before anything is written: a corpus that cannot fit is refused, and a long one announced.
        let estimate = corpus.estimatedBytes(count: count)
        if let file = database.sqliteFile {
            try DiskSpace.require(
                estimate, for: Format.count(count, "synthetic record"), at: file, instead: "generate fewer with a smaller --count"
            )
        }
        let console = verbosity.console(environment.console)
        let reportsProgress = count >= Self.progressFrom
        if reportsProgress {
            console.errorLine("generating \(Format.count(count, "record")), about \(Format.bytes(estimate)) in \(database.databaseName)")
        }
        let store = try await database.openPreparing(creating: true)
        var reported = 0
        let outcome = try await corpus.write(count: count, to: store) { written in
            // A line at every tenth of the way, so that a long generation shows it is moving.
            let tenth = written * 10 / count
            guard reportsProgress, tenth > reported, written < count else { return }
            reported = tenth
            console.errorLine("generating: \(Format.count(written)) of \(Format.count(count, "record")) written (\(tenth * 10)%)")
        }
        console.line(
            "generated \(Format.count(count, "record")) in \(pipeline.table) (seed \(seed)): "
                + "\(Format.count(outcome.counts.inserted)) new, \(Format.count(outcome.counts.replaced)) replaced, "
                + "\(Format.count(outcome.counts.unchanged)) unchanged; \(Format.count(outcome.brokenTotal)) deliberately broken"
        )
    }
}
