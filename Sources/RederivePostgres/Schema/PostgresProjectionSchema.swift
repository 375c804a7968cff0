#if PostgreSQL
/// The bookkeeping table of stored projections (``Rederive/Projection``), bookkeeping version 7.
///
/// `rederive_projections` holds one row per pipeline and record: the projection's bytes, the record's
/// source table (its key in `rederive_records`, by which its count is kept: ``PostgresProjectionCounts``), the
/// generation of the payload it was written from, the projection version that wrote it, its checksum
/// (`PayloadCodec.digest` of the bytes) and the digest of that payload, which the stamps of values
/// derived from it keep. A row serves only while its generation is the record's and its version the
/// pipeline's; the commit writes it in the transaction that stores the values derived from the same
/// payload, behind the same lease and generation checks, so no crash leaves a current row that
/// disagrees with its payload. A deleted record's row never serves again (a record inserted under its
/// id gets a new generation); the next commit of that id replaces it.
///
/// The bytes stay in the row, uncompressed, up to a page: a claim reads them for every record whose
/// payload processors are stale, so a TOAST read (a lookup in the TOAST index and a chunk per 2 KB)
/// or a decompression there would cost the server what sparing the payload saved. A row is only
/// considered for TOAST once it exceeds 2,032 bytes (`TOAST_TUPLE_THRESHOLD` on 8 KB pages), which
/// RoomScan's 1.4 KB projections never reach; `toast_tuple_target = 8160` leaves rows of up to a page
/// inline, and `STORAGE EXTERNAL` never compresses a compact encoding that gains little from it,
/// moving only projections larger than a page out of line (docs/postgresql.md).
enum PostgresProjectionSchema {
    /// Idempotent statements, run with the rest of ``PostgresSchema/statements``.
    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS rederive_projections (
            pipeline text NOT NULL,
            record_id bigint NOT NULL,
            source text NOT NULL,
            generation bigint NOT NULL,
            version integer NOT NULL,
            checksum bigint NOT NULL,
            payload_digest bigint NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (pipeline, record_id)
        )
        """,
        "ALTER TABLE rederive_projections ALTER COLUMN bytes SET STORAGE EXTERNAL",
        "ALTER TABLE rederive_projections SET (toast_tuple_target = 8160)",
    ]
}
#endif
