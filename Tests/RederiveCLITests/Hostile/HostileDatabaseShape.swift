import Foundation
import GRDB
import Testing

/// A database a user may point rederive at, built as a file: rederive's own, a table the user made
/// in one of the shapes SQLite allows, another program's database, or a file that is not a database at all.
enum HostileDatabaseShape: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// A database rederive prepared and derived, with failed and stale records: the control.
    case prepared
    /// `room_scans` made by the user, its key column (declared without a type) holding integers.
    case integerKeys
    /// The key column holding reals.
    case realKeys
    /// The key column holding blobs.
    case blobKeys
    /// The key column holding NULL in one record.
    case nullKey
    /// `id TEXT PRIMARY KEY`.
    case textID
    /// `id REAL PRIMARY KEY`.
    case realID
    /// `id BLOB PRIMARY KEY`.
    case blobID
    /// `id INTEGER` that is not the primary key (the rowid is).
    case idNotPrimaryKey
    /// `room_scans` a `WITHOUT ROWID` table.
    case withoutRowID
    /// `room_scans` a view over the user's own table.
    case view
    /// `room_scans` with no primary key at all: `id` is a plain column.
    case noPrimaryKey
    /// Another program's database with none of the pipeline's tables, in rollback-journal mode.
    case foreign
    /// A file of zero bytes, which SQLite reads as an empty database.
    case emptyFile
    /// A text file.
    case notSQLite
    /// The prepared database with two pages in the middle overwritten with garbage.
    case corruptPages
    /// The prepared database cut to half its length.
    case truncated

    var testDescription: String { rawValue }

    /// The shapes whose `room_scans` the user made: rederive either serves them or refuses them in one line.
    var isUsersTable: Bool {
        switch self {
        case .integerKeys, .realKeys, .blobKeys, .nullKey, .textID, .realID, .blobID, .idNotPrimaryKey, .withoutRowID, .view, .noPrimaryKey: true
        default: false
        }
    }

    /// Whether the file is damaged: rederive reads what it can and says in one line what it cannot.
    var isDamaged: Bool { self == .corruptPages || self == .truncated }

    /// The user's `CREATE TABLE` (or view) and the expression giving each copied record its key and id.
    private var usersTable: (schema: String, id: String, key: String)? {
        switch self {
        case .integerKeys: ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id UNIQUE, payload BLOB NOT NULL)", "id", "id * 1000")
        case .realKeys: ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id UNIQUE, payload BLOB NOT NULL)", "id", "id + 0.5")
        case .blobKeys: ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id UNIQUE, payload BLOB NOT NULL)", "id", "CAST(scan_id AS BLOB)")
        case .nullKey:
            ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id UNIQUE, payload BLOB NOT NULL)", "id", "CASE id WHEN 1 THEN NULL ELSE scan_id END")
        case .textID: ("CREATE TABLE room_scans (id TEXT PRIMARY KEY, scan_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL)", "'r' || id", "scan_id")
        case .realID: ("CREATE TABLE room_scans (id REAL PRIMARY KEY, scan_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL)", "id + 0.25", "scan_id")
        case .blobID: ("CREATE TABLE room_scans (id BLOB PRIMARY KEY, scan_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL)", "CAST(scan_id AS BLOB)", "scan_id")
        case .idNotPrimaryKey: ("CREATE TABLE room_scans (id INTEGER, scan_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL)", "id", "scan_id")
        case .withoutRowID:
            ("CREATE TABLE room_scans (id INTEGER PRIMARY KEY, scan_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL) WITHOUT ROWID", "id", "scan_id")
        case .noPrimaryKey: ("CREATE TABLE room_scans (id, scan_id, payload)", "id", "scan_id")
        default: nil
        }
    }

    /// Builds the shape as `path`, from `fixtures`' prepared database, closed, with nothing in a `-wal`.
    /// A user's table is then given to `rederive run` once, as a user would: its outcome is returned,
    /// and the commands of the matrix act on what it left.
    @discardableResult
    func make(at path: String, fixtures: HostileFixtures) async throws -> Preparation? {
        let url = URL(fileURLWithPath: path)
        switch self {
        case .prepared:
            try FileManager.default.copyItem(atPath: fixtures.prepared, toPath: path)
        case .foreign:
            try Self.write(path) { db in
                try db.execute(sql: "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada'), ('Grace')")
            }
        case .emptyFile:
            try Data().write(to: url)
        case .notSQLite:
            try Data("These are my notes, not a database.\n".utf8).write(to: url)
        case .corruptPages:
            try FileManager.default.copyItem(atPath: fixtures.prepared, toPath: path)
            var bytes = try Data(contentsOf: url)
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let pages = bytes.count / pageSize
            for page in [pages / 2, pages / 2 + 1] where page > 0 && page < pages {
                bytes.replaceSubrange(page * pageSize ..< (page + 1) * pageSize, with: Data(repeating: 0xA5, count: pageSize))
            }
            try bytes.write(to: url)
        case .truncated:
            try FileManager.default.copyItem(atPath: fixtures.prepared, toPath: path)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: try handle.seekToEnd() / 2)
            try handle.close()
        case .view:
            try Self.write(path) { db in
                try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [fixtures.prepared])
                try db.execute(sql: """
                    CREATE TABLE scans (id INTEGER PRIMARY KEY, scan_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL);
                    INSERT INTO scans SELECT id, scan_id, payload FROM source.room_scans;
                    CREATE VIEW room_scans AS SELECT id, scan_id, payload FROM scans
                    """)
            }
            return try await Self.prepare(path, fixtures: fixtures)
        default:
            guard let table = usersTable else { throw ProcessError("shape \(self) has no table") }
            try Self.write(path) { db in
                try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [fixtures.prepared])
                try db.execute(sql: table.schema)
                try db.execute(sql: "INSERT INTO room_scans (id, scan_id, payload) SELECT \(table.id), \(table.key), payload FROM source.room_scans")
            }
            return try await Self.prepare(path, fixtures: fixtures)
        }
        return nil
    }

    /// Writes a new database in rollback-journal mode, as most programs leave theirs, and closes it.
    private static func write(_ path: String, _ body: @escaping @Sendable (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try body(db) }
        try queue.close()
    }

    /// What the user's first `rederive run` on their own table did.
    struct Preparation: Sendable {
        let outcome: RederiveProcess.Outcome
        /// Whether it was killed for taking longer than ``HostileRunner/commandTimeout``.
        let hung: Bool
        /// The file before and after the run.
        let before: Data?
        let after: Data?
        /// The files beside the database when the run had ended.
        let leftovers: Set<String>
    }

    /// The user's first `rederive run` on their own table; whatever it does, everything it committed
    /// is then moved into the file itself.
    private static func prepare(_ path: String, fixtures: HostileFixtures) async throws -> Preparation {
        let before = HostileFiles.bytes(path)
        let process = try RederiveProcess.start(
            ["run", "--db", path, "--progress", "none", "--parallel", "2"], in: fixtures.scratch, environment: HostileRunner.environment
        )
        let ending = try await HostileRunner.wait(for: process, within: HostileRunner.commandTimeout)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let leftovers = HostileFiles.listing(directory).subtracting([URL(fileURLWithPath: path).lastPathComponent])
        let after = HostileFiles.bytes(path)
        try HostileFiles.checkpoint(path)
        return Preparation(outcome: ending.outcome, hung: ending.hung, before: before, after: after, leftovers: leftovers)
    }
}
