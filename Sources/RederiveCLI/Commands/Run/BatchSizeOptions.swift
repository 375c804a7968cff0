import ArgumentParser
import Rederive

/// `--batch-size` and `--target-batch-duration`, shared by `run` and `watch`: batches sized toward a
/// commit duration, or fixed.
struct BatchSizeOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Commit this many records per transaction, instead of sizing batches toward --target-batch-duration.",
        valueName: "records"
    ))
    var batchSize: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Size each batch so that its commit takes about this long.",
        discussion: "The default is 0.05 s on SQLite, where a commit holds the write lock the app's own writes wait for, and 0.5 s on PostgreSQL, where a commit locks only its rows and each costs a round trip. Batches start at 500 records and stay within 10 to 10,000; --batch-size fixes the size instead.",
        valueName: "seconds"
    ))
    var targetBatchDuration: Double?

    func validate() throws {
        try ValueBounds.batchSize.check(batchSize, "--batch-size")
        try ValueBounds.targetBatchDuration.check(targetBatchDuration, "--target-batch-duration")
        if batchSize != nil, targetBatchDuration != nil {
            throw ValidationError("--batch-size fixes the size of every batch; it takes no --target-batch-duration")
        }
    }

    /// Sets the configuration's fixed size or target duration, as given.
    func apply(to configuration: inout Runner.Configuration) {
        configuration.batchSize = batchSize
        configuration.targetBatchDuration = targetBatchDuration.map { .milliseconds(Int64(($0 * 1000).rounded(.up))) }
    }
}
