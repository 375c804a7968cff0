import GRDB

/// Bookkeeping migration `rederive.v7`: the stored projections of pipelines that declare one.
///
/// One row per pipeline and record: the projection's bytes, the generation of the payload it was
/// written from, the projection version that wrote it, its checksum (`PayloadCodec.digest` of the
/// bytes) and the digest of that payload, which stamps of values derived from it keep. A row serves
/// only while its generation is the record's and its version the pipeline's; the writer stores it in
/// the same transaction as the values derived from the same payload, so no crash leaves a current row
/// that disagrees with its payload. A deleted record's row never serves again (a record inserted under
/// its id gets a new generation); the next commit of that id replaces it, `rederive projections --drop` clears all.
enum ProjectionSchema {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rederive_projections (
                pipeline TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                generation INTEGER NOT NULL,
                version INTEGER NOT NULL,
                checksum INTEGER NOT NULL,
                payload_digest INTEGER NOT NULL,
                bytes BLOB NOT NULL,
                PRIMARY KEY (pipeline, record_id)
            )
            """)
    }
}
