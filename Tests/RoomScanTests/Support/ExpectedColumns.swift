import Foundation
import Rederive
import Testing

/// Checks derived values against the independently computed ones: REAL within 1e-4 relative,
/// INTEGER and TEXT exactly.
func expectColumns(
    _ values: [DerivedValue],
    of columns: [OutputColumn],
    equal expected: [String: Any],
    _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(values.count == columns.count, "\(context): \(values.count) values", sourceLocation: sourceLocation)
    for (value, column) in zip(values, columns) {
        let want = expected[column.name]
        switch (value, want) {
        case (.real(let got), let want as NSNumber):
            let reference = want.doubleValue
            let tolerance = max(abs(reference), 1e-12) * 1e-4
            #expect(abs(got - reference) <= tolerance,
                    "\(context) \(column.name): \(got) vs \(reference)", sourceLocation: sourceLocation)
        case (.integer(let got), let want as NSNumber):
            #expect(got == want.int64Value, "\(context) \(column.name)", sourceLocation: sourceLocation)
        case (.text(let got), let want as String):
            #expect(got == want, "\(context) \(column.name)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(context) \(column.name): derived \(value), expected \(String(describing: want))",
                         sourceLocation: sourceLocation)
        }
    }
}

/// Runs every processor of a pipeline on one payload and returns all values in column order, or
/// records the failures.
func deriveAll(_ pipeline: Pipeline, _ json: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [DerivedValue] {
    let outcomes = pipeline.evaluate(json: json, selection: Array(pipeline.processors.indices))
    var values: [DerivedValue] = []
    for outcome in outcomes {
        switch outcome {
        case .derived(let derived): values += derived
        case .failed(let kind, let message):
            Issue.record("\(kind): \(message)", sourceLocation: sourceLocation)
        }
    }
    return values
}
