import GRDB

/// Bookkeeping migration `rederive.v6`: what a dependent processor's stamp says it derived from.
///
/// `input_versions` names the versions of the inputs it read (`floor_area@2,section_labels@1`) and
/// `inputs_digest` is the `InputDigest` of their values. Both are `NULL` for processors that derive
/// from the payload alone. A dependent whose inputs are derived again runs only if the digest of their
/// new values differs, so an input re-derived to the same values leaves its dependents up to date.
/// The replaced stamps that rollback restores keep both as well.
enum InputStampSchema {
    static func migrate(_ db: Database) throws {
        for table in ["rederive_stamps", "rederive_replaced_stamps"] {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN inputs_digest INTEGER")
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN input_versions TEXT")
        }
    }
}
