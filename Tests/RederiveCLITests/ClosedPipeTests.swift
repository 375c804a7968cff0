import Foundation
import Glibc
import Testing

/// A reader that stops early, as `rederive failures | head -1` does, closes the pipe rederive writes
/// to: rederive ends quietly, as other command-line tools do, by SIGPIPE and with nothing on standard
/// error. A process that ignores SIGPIPE (the PostgreSQL build's networking does) ends the same way,
/// not with a trap and a "Fatal error" line.
@Suite("closed output pipe", .timeLimit(.minutes(5)))
struct ClosedPipeTests {
    /// How the process handles SIGPIPE when it starts, as `env` sets it.
    @Test(arguments: ["--default-signal=PIPE", "--ignore-signal=PIPE"])
    func aClosedPipeEndsTheCommandQuietly(disposition: String) async throws {
        // Every payload fails to decode: `failures` lists each record and processor, far more than a pipe holds.
        let payloads = (0..<2000).map { "not json \($0)" }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            let arguments = ["failures", "--db", database, "--format", "csv"]
            let run = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory, program: TrapFixtureCorpus.program)
            #expect(run.status == 3, "\(run.errors)")
            let whole = try await RederiveProcess.run(arguments, in: directory, program: TrapFixtureCorpus.program)
            try #require(whole.status == 0 && whole.output.utf8.count > 4 * 65_536, "\(whole.output.utf8.count) bytes: \(whole.errors)")

            // `command | head -n 1`, exiting with the command's status: 128 + the signal that ended it.
            let shell = ["/bin/bash", "-c", "\"$@\" | head -n 1; exit \"${PIPESTATUS[0]}\"", "closed-pipe", "/usr/bin/env", disposition]
            let headed = try await RederiveProcess.run(arguments, wrapper: shell, in: directory, program: TrapFixtureCorpus.program)
            #expect(headed.output == whole.output.prefix { $0 != "\n" } + "\n")
            #expect(headed.errors.isEmpty, "\(headed.errors)")
            #expect(!headed.signaled && headed.status == 128 + SIGPIPE, "status \(headed.status)")
        }
    }
}
