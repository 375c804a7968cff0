import Foundation
import Testing

/// What a command that fails tells a person: one line on standard error, with rederive's one prefix,
/// naming what is wrong, and none of the libraries' text (SQL, GRDB's, Foundation's, Swift's own).
enum OneLineError {
    /// Text that shows a library's message leaked through.
    static let leaks = [
        "SQLite error", "while executing", "GRDB", "NSCocoaErrorDomain", "Error Domain=", "Error:", "CancellationError",
        "Fatal error", "DatabaseError", "SELECT ", "INSERT ", "BEGIN ",
    ]

    /// Expects `errors` to be one line starting `rederive: ` that contains each of `mentioning` and no leak.
    static func expect(
        _ errors: String, mentioning: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(errors.hasPrefix("rederive: ") && errors.hasSuffix("\n"), "\(errors)", sourceLocation: sourceLocation)
        #expect(errors.split(separator: "\n").count == 1, "\(errors)", sourceLocation: sourceLocation)
        for text in mentioning {
            #expect(errors.contains(text), "\(errors) does not mention \(text)", sourceLocation: sourceLocation)
        }
        for leak in leaks {
            #expect(!errors.contains(leak), "\(errors) shows \(leak)", sourceLocation: sourceLocation)
        }
    }

    /// Expects a process that exited (not by a signal) with `status` and one such line.
    static func expect(
        _ outcome: RederiveProcess.Outcome, status: Int32 = 1, mentioning: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!outcome.signaled && outcome.status == status, "\(outcome.signaled ? "signal" : "status") \(outcome.status): \(outcome.errors)", sourceLocation: sourceLocation)
        expect(outcome.errors, mentioning: mentioning, sourceLocation: sourceLocation)
    }
}
