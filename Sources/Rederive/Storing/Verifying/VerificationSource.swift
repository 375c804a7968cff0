/// A store that can hand out records as they are stored, for ``Verifier``. Reading never writes.
public protocol VerificationSource: Sendable {
    /// How this store holds the values it is given, by which stored and derived values are compared.
    var storageRules: StorageRules { get }

    /// Up to `limit` records with ids greater than `cursor`, in id order.
    func storedRecords(of pipeline: Pipeline, after cursor: Int64?, limit: Int) async throws -> [StoredRecord]

    /// The records with these ids that still exist, in id order.
    func storedRecords(of pipeline: Pipeline, ids: [Int64]) async throws -> [StoredRecord]

    /// Up to `count` ids of records chosen at random, in id order.
    func sampleRecordIDs(of pipeline: Pipeline, count: Int) async throws -> [Int64]
}
