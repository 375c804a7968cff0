import Glibc
import Testing

/// A reader that stops early, as `rederive failures | head -1` does, closes the pipe rederive writes
/// to: rederive ends quietly, as other command-line tools do, by SIGPIPE and with nothing on standard
/// error. A process that ignores SIGPIPE (the PostgreSQL build's networking does) ends the same way,
/// not with a trap and a "Fatal error" line.
@Suite("closed output pipe", .timeLimit(.minutes(5)))
struct ClosedPipeTests {
    /// `disposition`: how the process handles SIGPIPE when it starts, as `env` sets it.
    @Test(arguments: TestStore.available, ["--default-signal=PIPE", "--ignore-signal=PIPE"])
    func aClosedPipeEndsTheCommandQuietly(store: TestStore, disposition: String) async throws {
        try await store.withHarness { harness in
            // Every record is broken: `failures` lists each record and processor, far more than a pipe holds.
            #expect(try await harness.rederive("generate", "--count", "400", "--corrupt", "1").status == 0)
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 3, "\(run.errors)")
            let arguments = ["failures", "--db", harness.databasePath, "--format", "csv"]
            let whole = try await RederiveProcess.run(arguments, in: harness.directory)
            try #require(whole.status == 0 && whole.output.utf8.count > 4 * 65_536, "\(whole.output.utf8.count) bytes: \(whole.errors)")

            // `command | head -n 1`, exiting with the command's status: 128 + the signal that ended it.
            let shell = ["/bin/bash", "-c", "\"$@\" | head -n 1; exit \"${PIPESTATUS[0]}\"", "closed-pipe", "/usr/bin/env", disposition]
            let headed = try await RederiveProcess.run(arguments, wrapper: shell, in: harness.directory)
            #expect(headed.output == whole.output.prefix { $0 != "\n" } + "\n")
            #expect(headed.errors.isEmpty, "\(headed.errors)")
            #expect(!headed.signaled && headed.status == 128 + SIGPIPE, "status \(headed.status)")
        }
    }
}
