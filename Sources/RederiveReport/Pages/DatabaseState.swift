import Rederive

/// What `rederive report` shows about a database, read through the store interfaces: per processor
/// how current its values are, the recorded runs, the current failures, and a sample of the derived
/// numeric values.
public struct DatabaseState: Sendable {
    /// Per processor of every pipeline: up to date, stale and failed records.
    public var status: [ProcessorStatus]
    /// Recorded runs, oldest first.
    public var runs: [RunHistoryEntry]
    /// Current failures of every pipeline.
    public var failures: [RecordFailure]
    /// Per numeric output column: the sampled records' values (nil for NULL).
    public var values: [ColumnIdentity: [Double?]]
    /// Per pipeline: how many records were sampled for ``values``, and how many it has.
    public var sampled: [String: SampleSize]

    /// How many records a sample holds, of how many.
    public struct SampleSize: Sendable, Hashable {
        /// Records in the sample.
        public let sampled: Int
        /// Records in the pipeline's table.
        public let records: Int

        /// `sampled` records of `records`.
        public init(sampled: Int, records: Int) {
            self.sampled = sampled
            self.records = records
        }
    }

    /// How many runs a report shows at most, the newest.
    public static let runLimit = 60

    /// Reads the state of `pipelines` from `store`, with up to `sampleSize` records per pipeline chosen
    /// at random for the value distributions.
    public static func read(
        from store: any StoreReporting & StoredValueReading & VerificationSource, pipelines: [Pipeline], sampleSize: Int = 2_000
    ) async throws -> DatabaseState {
        var state = DatabaseState(status: [], runs: [], failures: [], values: [:], sampled: [:])
        state.runs = try await store.runs(limit: runLimit).reversed()
        for pipeline in pipelines {
            let status = try await store.status(of: pipeline)
            state.status += status
            state.failures += try await store.failures(of: pipeline, filter: FailureFilter())
            let ids = try await store.sampleRecordIDs(of: pipeline, count: sampleSize)
            // Values in `Pipeline/outputColumns` order, as `StoredValueReading` gives them.
            var columns: [(index: Int, identity: ColumnIdentity)] = []
            var index = 0
            for processor in pipeline.processors {
                for column in processor.columns {
                    if column.type == .integer || column.type == .real {
                        let identity = ColumnIdentity(pipeline: pipeline.name, processor: processor.name, column: column.name, type: column.type)
                        columns.append((index, identity))
                        state.values[identity] = []
                    }
                    index += 1
                }
            }
            // Values only, never payloads, in chunks that keep each query small.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = Array(ids[start..<min(start + 500, ids.count)])
                let rows = try await store.storedRows(of: pipeline, recordIDs: chunk)
                for id in chunk {
                    guard let row = rows[id] else { continue }
                    for (index, identity) in columns {
                        state.values[identity]?.append(row.values?[index].number)
                    }
                }
            }
            state.sampled[pipeline.name] = SampleSize(sampled: ids.count, records: status.first?.records ?? ids.count)
        }
        return state
    }
}
