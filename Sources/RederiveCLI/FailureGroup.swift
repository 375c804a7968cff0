import ArgumentParser
import Foundation
import Rederive

/// The failures of one record that share a cause: the same kind and message, recorded by the same run.
///
/// A payload that does not inflate or decode fails every processor of its pipeline with one message;
/// grouped, that is one entry listing the processors. A processor that fails alone stays alone.
struct FailureGroup {
    let pipeline: String
    let recordID: Int64
    let key: String?
    let kind: FailureKind
    let message: String
    let runID: Int64?
    /// The failures that share this cause, one per processor, in the order they were listed.
    private(set) var failures: [RecordFailure]

    var processors: [String] { failures.map(\.processor) }
    /// When the last of them was recorded.
    var at: Date { failures.map(\.at).max() ?? .distantPast }

    private init(_ first: RecordFailure) {
        pipeline = first.pipeline
        recordID = first.recordID
        key = first.key
        kind = first.kind
        message = first.message
        runID = first.runID
        failures = [first]
    }

    /// Groups failures by record and cause, keeping the order in which each group first appears.
    static func grouping(_ failures: [RecordFailure]) -> [FailureGroup] {
        var groups: [FailureGroup] = []
        var index: [Cause: Int] = [:]
        for failure in failures {
            let cause = Cause(failure)
            if let position = index[cause] {
                groups[position].failures.append(failure)
            } else {
                index[cause] = groups.count
                groups.append(FailureGroup(failure))
            }
        }
        return groups
    }

    /// What makes two failures of a record the same one.
    private struct Cause: Hashable {
        let pipeline: String
        let recordID: Int64
        let kind: FailureKind
        let message: String
        let runID: Int64?

        init(_ failure: RecordFailure) {
            pipeline = failure.pipeline
            recordID = failure.recordID
            kind = failure.kind
            message = failure.message
            runID = failure.runID
        }
    }
}

/// How `rederive failures` groups what it lists.
enum FailureGrouping: String, CaseIterable, ExpressibleByArgument {
    /// One entry per record and cause, listing the processors that failed that way.
    case record
    /// One entry per record and processor, as the failures are stored.
    case processor
}
