import Foundation
import Testing

/// Every number a command takes is refused, as a usage error in one line that names the bound, when it
/// is beyond what the machine can use or below what makes sense; a negative number is read as the
/// option's value, not as an option.
@Suite("Value bounds")
struct ValueBoundsTests {
    /// The most workers this machine accepts: 8 per core.
    static let mostWorkers = 8 * ProcessInfo.processInfo.activeProcessorCount

    /// Runs `arguments` and expects one line on standard error, containing `message`, and exit 64.
    func expectRefused(_ arguments: [String], _ message: String) async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive(arguments)
            #expect(outcome.status == 64, "\(arguments): status \(outcome.status), \(outcome.errors)")
            #expect(outcome.errors.contains(message), "\(arguments): \(outcome.errors)")
            let lines = outcome.errors.split(separator: "\n").filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("  See") }
            #expect(lines.count == 1, "\(arguments): \(outcome.errors)")
        }
    }

    @Test func tooManyWorkersAreRefusedNamingTheBound() async throws {
        let message = "--parallel 100000 is more than \(Self.mostWorkers), the most workers this machine can use (8 per core)"
        for arguments in [["run"], ["verify"], ["import", "."]] {
            try await expectRefused(arguments + ["--parallel", "100000"], message)
        }
        try await expectRefused(["run", "--isolate", "--parallel", "\(Self.mostWorkers + 1)"], "is more than \(Self.mostWorkers)")
    }

    @Test(arguments: [
        (["run", "--batch-size", "10000000"], "--batch-size 10000000 is more than 100000, the most records one transaction commits"),
        (["run", "--max-payload-size", "100000000"], "--max-payload-size 100000000 is more than"),
        (["verify", "--max-payload-size", "100000000"], "MiB, this machine's memory"),
        (["run", "--max-rate", "1e300"], "is more than 1000000 records per second"),
        (["run", "--max-rate", "inf"], "--max-rate must be a number of records per second, not inf"),
        (["run", "--timeout", "1e18"], "is more than 86400 seconds, a day"),
        (["run", "--lease-duration", "1e12"], "--lease-duration 1000000000000 is more than 3600 seconds"),
        (["run", "--target-batch-duration", "3600"], "--target-batch-duration 3600 is more than 60 seconds, a minute"),
        (["watch", "--target-batch-duration", "inf"], "--target-batch-duration must be a number of seconds, not inf"),
        (["status", "--busy-timeout", "1e12"], "--busy-timeout 1000000000000 is more than 3600 seconds"),
    ])
    func valuesBeyondTheMachineAreRefused(arguments: [String], message: String) async throws {
        try await expectRefused(arguments, message)
    }

    @Test(arguments: [
        (["run", "--parallel", "-1"], "--parallel must be at least 1, not -1"),
        (["run", "--max-payload-size", "-5"], "--max-payload-size must be at least 1 MiB, not -5"),
        (["verify", "--parallel", "-3"], "--parallel must be at least 1, not -3"),
        (["import", "--parallel", "-2", "."], "--parallel must be at least 1, not -2"),
        (["run", "--batch-size", "-10"], "--batch-size must be at least 1, not -10"),
        (["run", "--target-batch-duration", "0"], "--target-batch-duration must be at least 0.001 seconds, not 0"),
        (["run", "--batch-size", "100", "--target-batch-duration", "0.1"], "--batch-size fixes the size of every batch; it takes no --target-batch-duration"),
        (["run", "--limit", "-1"], "--limit must be at least 1, not -1"),
        (["run", "--max-rate", "-2"], "--max-rate must be at least 0.001 records per second, not -2"),
        (["run", "--timeout", "-1"], "--timeout must be at least 0.001 seconds, not -1"),
        (["run", "--lease-duration", "-15"], "--lease-duration must be at least 1 second, not -15"),
        (["status", "--busy-timeout", "-1"], "--busy-timeout must be at least 0 seconds, not -1"),
        (["history", "--limit", "-4"], "--limit must be at least 1, not -4"),
        (["failures", "--limit", "-4"], "--limit must be at least 1, not -4"),
        (["report", "--sample", "-4", "out.html"], "--sample must be at least 1, not -4"),
        (["generate", "--count", "-4"], "--count must be at least 1, not -4"),
        (["demo", "--count", "-4"], "--count must be at least 1, not -4"),
        (["import", "--level", "-1", "."], "--level must be from 0 to 9, not -1"),
    ])
    func negativeValuesSayWhatIsWrongWithThem(arguments: [String], message: String) async throws {
        try await expectRefused(arguments, message)
    }
}
