import Foundation
import Rederive
import RederiveCLI

/// A `rederive` executable for the `run --isolate` and `run --timeout` tests, whose processor traps on
/// some records the way real bugs do (a force-unwrap of nil, an index out of range, a failed
/// precondition), never returns on a record labelled `hang`, and takes 20 ms on one labelled `slow`. A record labelled `environment` fails
/// with the names of the variables its process was started with among a few asked about, to show what
/// a worker inherits.
struct Item: Decodable, Sendable {
    let label: String
    let values: [Double]
}

/// The failure of a record labelled `environment`: which of the variables asked about are set.
struct EnvironmentReport: Error, CustomStringConvertible {
    static let asked = ["PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "REDERIVE_DB", "REDERIVE_TEST_MARKER"]
    let description = "set: " + asked.filter { ProcessInfo.processInfo.environment[$0] != nil }.joined(separator: " ")
}

let total = Processor<Item>(name: "total", version: 1, columns: [.real("total")]) { item in
    switch item.label {
    case "trap-unwrap":
        let missing: Double? = item.values.first { $0 > 1e9 }
        return [.real(missing!)]
    case "trap-index":
        return [.real(item.values[item.values.count + 5])]
    case "trap-precondition":
        precondition(item.values.isEmpty, "values must be empty")
        return [.real(0)]
    case "environment":
        throw EnvironmentReport()
    case "slow":
        // A record that takes 20 ms, so that a backlog of them is still draining when a test stops it.
        usleep(20_000)
        return [.real(item.values.reduce(0, +))]
    case "hang":
        // An endless loop, as a bug on one odd input would write it.
        while item.values.count < Int.max { usleep(10_000) }
        return [.real(0)]
    default:
        return [.real(item.values.reduce(0, +))]
    }
}

let count = Processor<Item>(name: "count", version: 1, columns: [.integer("value_count")]) { item in
    [.integer(item.values.count)]
}

let items = Pipeline(name: "items", table: "items", keyColumn: "key", decoding: Item.self, processors: [total, count])

await RederiveCommand.main(pipelines: [items])
