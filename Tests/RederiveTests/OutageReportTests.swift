@testable import Rederive
import Logging
import Synchronization
import Testing

/// One outage is one line when it begins and one when it ends, however the attempts that tell of it
/// interleave: an attempt begun before the outage does not end it, and one begun before it ended
/// does not begin another.
@Suite struct OutageReportTests {
    /// The messages logged, in order.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    struct Capture: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.append("\(event.message)") }
    }

    static func report() -> (OutageReport, Lines) {
        let lines = Lines()
        return (OutageReport(logger: Logger(label: "test") { _ in Capture(lines: lines) }), lines)
    }

    static let began = "cannot reach the database; retrying until it is back"
    static let ended = "the database is reached again"

    @Test func anAttemptBegunBeforeTheOutageEndedThatFailsAfterBeginsNoOther() {
        let (report, lines) = Self.report()
        let beforeTheEnd = ContinuousClock.now
        report.failed("the session was terminated")
        report.reached()
        // A statement sent on a connection the restart cut, failing only now.
        report.failed("the connection was closed", since: beforeTheEnd)
        #expect(lines.all == [Self.began, Self.ended])
        #expect(report.began == nil)
        // Tried again, it tells of now: a failure begins a new outage.
        report.failed("the connection was refused")
        #expect(lines.all == [Self.began, Self.ended, Self.began])
        #expect(report.began != nil)
    }

    @Test func anAttemptBegunBeforeTheOutageEndsNothing() {
        let (report, lines) = Self.report()
        let beforeTheOutage = ContinuousClock.now
        report.failed("the connection was reset")
        report.reached(since: beforeTheOutage)
        #expect(lines.all == [Self.began])
        report.reached()
        #expect(lines.all == [Self.began, Self.ended])
    }

    @Test func aFailureWithNoOutageBeforeBeginsOne() {
        let (report, lines) = Self.report()
        let long = ContinuousClock.now
        report.failed("no answer from the server within 10 s", since: long)
        #expect(lines.all == [Self.began])
    }
}
