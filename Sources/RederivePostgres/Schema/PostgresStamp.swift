#if PostgreSQL
import Foundation
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

    /// A record's stamps as a JSON object of ``json(_:)``'s, by processor name: `NULL` where it has
    /// none. The arguments are SQL expressions: the pipeline's name, its table's, and the record's id.
    static func object(pipeline: String, source: String, recordID: String) -> String {
        """
        (SELECT jsonb_object_agg(x.processor, \(json("x")))::text FROM rederive_stamps x \
        WHERE x.source = \(source) AND x.record_id = \(recordID) AND x.pipeline = \(pipeline))
        """
    }

    /// The stamps of a JSON object of ``json(_:)``'s objects, by processor name; none for `NULL`.
    static func entries(_ json: String?) throws -> [String: PostgresStamp] {
        guard let json else { return [:] }
        do {
            return try JSONDecoder().decode([String: PostgresStamp].self, from: Data(json.utf8))
        } catch {
            throw RederiveError(.schemaMismatch, "stamps read from rederive_stamps are not what rederive wrote: \(json.prefix(200))")
        }
    }
}
#endif
