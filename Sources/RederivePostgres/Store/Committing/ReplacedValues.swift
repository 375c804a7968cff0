#if PostgreSQL
import Rederive

/// What one record's commit replaces, per processor whose values change: the values its columns
/// held, nil when the record had no row of derived values yet.
struct ReplacedValues {
    var processors: [(processor: ProcessorDescriptor, values: [DerivedValue]?)] = []

    /// What a plan says one record's commit replaces.
    init(_ replaced: ReplacedWrite, _ pipeline: Pipeline) {
        processors = replaced.processors.map { kept in
            let values: [DerivedValue]? = switch kept.old {
            case .values(let values): values
            case .defaults: nil
            }
            return (pipeline.processors[kept.processor], values)
        }
    }

    /// `{"name": {"values": {"column": value, …} | null, "stamp": {…}}, …}`, as ``PostgresSchema``'s
    /// `rederive_replaced` keeps it: each processor's values, and its stamp of `stamps` (by processor
    /// name) when it had one.
    func json(stamps: [String: PostgresStamp]) -> String {
        "{" + processors.map { processor, values in
            let kept = values.map { values in
                "{" + zip(processor.columns, values).map { column, value in
                    "\(PostgresStore.jsonString(column.name)): \(KeptValue.json(value))"
                }.joined(separator: ", ") + "}"
            }
            let stamp = stamps[processor.name].map { ", \"stamp\": \($0.json)" } ?? ""
            return "\(PostgresStore.jsonString(processor.name)): {\"values\": \(kept ?? "null")\(stamp)}"
        }.joined(separator: ", ") + "}"
    }
}
#endif
