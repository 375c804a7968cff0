import Foundation
import Rederive
@testable import RederiveCLI
import Testing

/// The live bar's layout: one line that fits every terminal width, never wrapping.
@Suite("progress line")
struct ProgressLineTests {
    static let lines = [
        ProgressLine(done: 0, total: 1_000, rate: 0, failed: 0),
        ProgressLine(done: 512, total: 1_000, rate: 1_234.5, failed: 16),
        ProgressLine(done: 1_000, total: 1_000, rate: 987.6, failed: 16),
        ProgressLine(done: 123_456, total: 9_876_543, rate: 42.1, failed: 12_345),
        ProgressLine(
            done: 7, total: 40, rate: 0.4, failed: 3,
            overdue: [InFlightRecord(recordID: 17, worker: 0, elapsed: .seconds(12)), InFlightRecord(recordID: 40, worker: 1, elapsed: .seconds(11))]
        ),
    ]

    @Test(arguments: lines)
    func theLineIsShorterThanEveryWidth(line: ProgressLine) {
        for width in 1...240 {
            let text = line.text(width: width)
            #expect(text.count <= width - 1, "\(width) columns: \(text.debugDescription)")
            #expect(!text.contains("\n") && !text.contains("\r"))
        }
    }

    @Test(arguments: lines)
    func theCountIsTheLastToGo(line: ProgressLine) {
        let count = "\(Format.count(line.done))/\(Format.count(line.total))"
        for width in (count.count + 2)...240 {
            #expect(line.text(width: width).contains(count), "\(width) columns")
        }
    }

    @Test func wideTerminalsShowEveryFieldAndTheWholeBar() {
        let line = ProgressLine(done: 512, total: 1_000, rate: 1_234.5, failed: 16)
        let text = line.text(width: 200)
        #expect(text.hasPrefix(String(repeating: "█", count: 15) + String(repeating: "░", count: 15) + " 512/1,000  51%"), "\(text)")
        #expect(text.hasSuffix("  1,235 rec/s  ETA 0:00  failures 16"), "\(text)")
    }

    @Test func eightyColumnsKeepEveryFieldWithAShorterBar() {
        // 1,000/1,000 with ten failures or more was 81 characters: one more than an 80-column terminal.
        let text = ProgressLine(done: 1_000, total: 1_000, rate: 1_234.5, failed: 16).text(width: 80)
        #expect(text.count == 79, "\(text)")
        for field in ["1,000/1,000", "100%", "1,235 rec/s", "ETA 0:00", "failures 16"] {
            #expect(text.contains(field), "\(field) in \(text)")
        }
        #expect(text.hasPrefix("█"))
    }

    @Test func narrowTerminalsDropTheLeastImportantFieldsFirst() {
        let line = ProgressLine(done: 512, total: 1_000, rate: 1_234.5, failed: 16)
        #expect(line.text(width: 40) == "512/1,000  51%  ETA 0:00  failures 16")
        #expect(line.text(width: 30) == "512/1,000  failures 16")
        #expect(line.text(width: 20) == "512/1,000")
        #expect(line.text(width: 6) == "512/1")
    }

    @Test func overdueRecordsGoFirst() {
        let line = ProgressLine(
            done: 7, total: 40, rate: 0.4, failed: 3, overdue: [InFlightRecord(recordID: 17, worker: 0, elapsed: .seconds(12))]
        )
        #expect(line.text(width: 200).hasSuffix("failures 3  overdue: record 17 (12 s)"))
        #expect(!line.text(width: 80).contains("overdue") && line.text(width: 80).contains("rec/s"))
    }
}
