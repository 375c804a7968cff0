#if PostgreSQL
import Foundation
import Rederive

/// One processor's entry in a record's stamp row (`rederive_stamps.processors`), as ``PostgresSchema``
/// describes it.
struct PostgresStamp: Codable, Sendable, Hashable {
    var current: Bool
    var version: Int
    var generation: Int64
    var digest: Int64
    var run: Int64
    var inputsDigest: Int64?
    var inputVersions: String?

    enum CodingKeys: String, CodingKey {
        case current, version, generation, digest, run
        case inputsDigest = "inputs_digest"
        case inputVersions = "input_versions"
    }

    /// The entries of a stamp row's JSON object, by processor name; none for a record without one.
    static func entries(_ json: String?) throws -> [String: PostgresStamp] {
        guard let json else { return [:] }
        do {
            return try JSONDecoder().decode([String: PostgresStamp].self, from: Data(json.utf8))
        } catch {
            throw RederiveError(.schemaMismatch, "a stamp row of rederive_stamps is not what rederive wrote: \(json.prefix(200))")
        }
    }
}
#endif
