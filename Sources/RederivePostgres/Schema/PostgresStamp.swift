#if PostgreSQL
import Rederive

/// One processor's stamp of a record, as a row of `rederive_stamps` holds it (``PostgresStampRows``)
/// and as `rederive_replaced` keeps it in JSON, for rollback.
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

    /// The stamp as a JSON object of these coding keys, without the absent ones: what a rollback
    /// decodes.
    var json: String {
        var fields = [
            "\"current\": \(current)", "\"version\": \(version)", "\"generation\": \(generation)",
            "\"digest\": \(digest)", "\"run\": \(run)",
        ]
        if let inputsDigest { fields.append("\"inputs_digest\": \(inputsDigest)") }
        if let inputVersions { fields.append("\"input_versions\": \(PostgresStore.jsonString(inputVersions))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
#endif
