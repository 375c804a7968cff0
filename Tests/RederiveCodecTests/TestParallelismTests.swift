import Foundation
import Testing

/// The test process bounds how many tests run at once (Tests/TestParallelism), unless the caller set
/// the bound: without it, a loaded machine times out tests that wait on the cooperative pool.
@Suite("Tests run at once")
struct TestParallelismTests {
    @Test func theTestProcessBoundsHowManyTestsRunAtOnce() throws {
        let text = try #require(ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"])
        let width = try #require(Int(text))
        #expect((1...64).contains(width))
    }
}
