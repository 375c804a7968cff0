@testable import Rederive
import Testing

/// A throttle's reason reads true: the value that holds the run shows as more than its bound.
@Suite("Throttle reasons")
struct ThrottleReasonTests {
    @Test func aValueJustAboveItsBoundShowsEnoughDigitsToReadAsMore() {
        #expect(Throttle.distinct(2.04, 2) == ("2.04", "2"))
        #expect(Throttle.distinct(2.0004, 2) == ("2.0004", "2"))
        #expect(Throttle.distinct(9, 5) == ("9", "5"))
        #expect(Throttle.distinct(5.3, 2.5) == ("5.3", "2.5"))
    }
}
