import Rederive
import Synchronization

/// Records claimed before a pass started, handed to its first claim: a watcher claims a lane's first
/// records itself, so that it records a run only when it found something to derive.
final class ClaimedRecords: ClaimsAhead {
    private let records: Mutex<[PendingRecord]>

    init(_ records: [PendingRecord]) {
        self.records = Mutex(records)
    }

    /// The records, the first time; none after.
    func claim(limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        records.withLock { records in
            defer { records = [] }
            return records
        }
    }

    func committed(_ results: [RecordResult]) {}
}
