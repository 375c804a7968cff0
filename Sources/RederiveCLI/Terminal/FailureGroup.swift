import ArgumentParser
import Foundation
import Rederive

/// The failures of one record that share a cause: the same kind and message, recorded by the same run.
///
/// A payload that does not inflate or decode fails every processor of its pipeline with one message;
/// grouped, that is one entry listing the processors. The `upstream` failures of processors that read a
/// failed processor join the group of that failure, listed after it, so that one broken payload is one
/// entry. A processor that fails alone stays alone.
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

    /// Groups failures by record and cause, keeping the order in which each group first appears; an
    /// `upstream` failure joins the group of an input of its processor that failed in the same run.
    static func grouping(_ failures: [RecordFailure], pipelines: [Pipeline]) -> [FailureGroup] {
        var groups: [FailureGroup] = []
        var byCause: [Cause: Int] = [:]
        var byProcessor: [ProcessorFailure: Int] = [:]
        // Where each group's first failure was listed, to keep that order.
        var firstPosition: [Int] = []
        func add(_ failure: RecordFailure, at position: Int, to group: Int? = nil) {
            let index = group ?? byCause[Cause(failure)] ?? groups.count
            if index == groups.count {
                byCause[Cause(failure)] = index
                groups.append(FailureGroup(failure))
                firstPosition.append(position)
            } else {
                groups[index].failures.append(failure)
            }
            byProcessor[ProcessorFailure(failure, processor: failure.processor)] = index
        }
        var upstream: [(position: Int, failure: RecordFailure)] = []
        for (position, failure) in failures.enumerated() {
            if failure.kind == .upstream {
                upstream.append((position, failure))
            } else {
                add(failure, at: position)
            }
        }
        // Upstream failures join their input's group, which may itself be an upstream failure's: place
        // what can be placed until nothing more can, and group the rest by cause.
        let pipelinesByName = Dictionary(pipelines.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        while !upstream.isEmpty {
            let unplaced = upstream.filter { position, failure in
                let inputs = pipelinesByName[failure.pipeline]?.inputs(of: failure.processor) ?? []
                guard let group = inputs.lazy.compactMap({ byProcessor[ProcessorFailure(failure, processor: $0)] }).first else {
                    return true
                }
                add(failure, at: position, to: group)
                return false
            }
            if unplaced.count == upstream.count {
                for (position, failure) in unplaced { add(failure, at: position) }
                break
            }
            upstream = unplaced
        }
        return groups.indices.sorted { firstPosition[$0] < firstPosition[$1] }.map { groups[$0] }
    }

    /// One processor's failure of one record in one run.
    private struct ProcessorFailure: Hashable {
        let pipeline: String
        let recordID: Int64
        let runID: Int64?
        let processor: String

        init(_ failure: RecordFailure, processor: String) {
            pipeline = failure.pipeline
            recordID = failure.recordID
            runID = failure.runID
            self.processor = processor
        }
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
