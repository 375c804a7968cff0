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

    /// The stamp row of alias `row` as a JSON object of these coding keys, without the absent ones.
    static func json(_ row: String) -> String {
        """
        jsonb_strip_nulls(jsonb_build_object('current', \(row).current, 'version', \(row).version, \
        'generation', \(row).generation, 'digest', \(row).payload_digest, 'run', \(row).run_id, \
        'inputs_digest', \(row).inputs_digest, 'input_versions', \(row).input_versions))
        """
    }
}
#endif
