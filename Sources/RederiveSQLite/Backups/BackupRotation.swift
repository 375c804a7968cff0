import Foundation
import Rederive

/// Backups taken automatically before risky work, kept in a directory next to the database.
///
/// `rooms.sqlite` keeps its backups in `rooms.sqlite.backups/`, named by time so that they sort
/// oldest first; only the newest `keep` stay.
///
/// ```swift
/// let rotation = BackupRotation(database: "rooms.sqlite", keep: 3)
/// let report = try await rotation.backUp()
/// ```
public struct BackupRotation: Sendable {
    /// The database file whose backups these are.
    public let database: String
    /// How many backups stay: the newest.
    public let keep: Int

    /// Backups of `database`, keeping the newest `keep`.
    public init(database: String, keep: Int = 3) {
        self.database = database
        self.keep = keep
    }

    /// Where the backups are: the database's path with `.backups` appended.
    public var directory: String { database + ".backups" }

    /// Takes a verified backup, then removes the oldest beyond `keep`. Returns the new backup.
    public func backUp(now: Date = Date()) async throws -> DatabaseBackup.Report {
        guard keep >= 1 else {
            throw RederiveError(.invalidArgument, "backups to keep must be at least 1, not \(keep)")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RederiveError(.file, "cannot create backup directory \(directory)", underlying: error)
        }
        let stem = URL(fileURLWithPath: database).deletingPathExtension().lastPathComponent
        let stamp = now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeSeparator(.omitted))
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(stem)-\(stamp).sqlite").path
        let report = try await DatabaseBackup.create(of: database, to: path)
        for old in backups().dropLast(keep) {
            try? FileManager.default.removeItem(atPath: old)
        }
        return report
    }

    /// The kept backups, oldest first.
    public func backups() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") && !$0.hasPrefix(".") }.sorted()
            .map { URL(fileURLWithPath: directory).appendingPathComponent($0).path }
    }
}
