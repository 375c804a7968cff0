import Foundation
import Glibc
import Testing

/// What else is true of the database while a command runs: nothing, another program holds its write
/// lock, the user may not write it, the disk is full, or another process holds the pipeline's lease.
enum HostileDatabaseState: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case normal
    /// Another program holds `BEGIN EXCLUSIVE` (in WAL mode, readers still read).
    case locked
    /// The file is 0444 in a 0555 directory and the command runs as `nobody` (root ignores modes).
    case readOnly
    /// No file may grow past 64 KiB (`RLIMIT_FSIZE`, with SIGXFSZ ignored so that writes fail with
    /// `EFBIG`, as on a full disk); the database is larger, its `-wal` may not grow past that either.
    case fullDisk
    /// A `rederive watch` process holds the lease and keeps the records current.
    case leased

    var testDescription: String { rawValue }

    static let fileSizeLimit = 64 * 1024

    /// The command that runs rederive in this state, from `directory`, as a user would (`cd` there first).
    func wrapper(in directory: URL) -> [String] {
        let cd = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path]
        switch self {
        case .readOnly:
            return (geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []) + cd
        case .fullDisk:
            return ["/bin/sh", "-c", #"cd "$0" && trap '' XFSZ && exec prlimit --fsize=\#(Self.fileSizeLimit) -- "$@""#, directory.path]
        case .normal, .locked, .leased:
            return cd
        }
    }

    /// Puts the database at `path` into this state; the returned holder ends it.
    func enter(_ path: String, data: URL, fixtures: HostileFixtures) async throws -> Holder {
        switch self {
        case .normal, .fullDisk:
            return Holder()
        case .readOnly:
            chmod(path, 0o444)
            chmod(data.path, 0o555)
            return Holder(release: { chmod(data.path, 0o777); chmod(path, 0o644) })
        case .locked:
            let lock = try await ExclusiveLock.take(path)
            return Holder(release: { await lock.release() })
        case .leased:
            let watcher = try RederiveProcess.start(
                ["watch", "--db", path, "--parallel", "1", "--poll-interval", "0.2"], in: fixtures.scratch, environment: HostileRunner.environment
            )
            let holder = Holder(watcher: watcher)
            // The watcher has the lease and has derived what was stale once status shows nothing stale.
            for _ in 0 ..< 100 {
                if watcher.hasEnded { break }
                let status = try await RederiveProcess.run(["status", "--db", path, "--format", "json"], in: fixtures.scratch)
                if status.status == 0, Self.staleCount(status.output) == 0 { return holder }
                try await Task.sleep(for: .milliseconds(200))
            }
            let ending = try await holder.end()
            throw ProcessError("the watcher that should hold the lease did not settle: \(ending.map { "\($0.outcome.status) \($0.outcome.errors)" } ?? "")")
        }
    }

    /// The stale records `status --format json` counts over every processor, or nil when it cannot be read.
    static func staleCount(_ json: String) -> Int? {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let processors = root["processors"] as? [[String: Any]]
        else { return nil }
        return processors.reduce(0) { $0 + ($1["stale"] as? Int ?? 0) }
    }

    /// Ends a state: restores modes, releases a lock, or stops the watcher (which must exit 0).
    struct Holder: Sendable {
        var release: @Sendable () async -> Void = {}
        var watcher: RederiveProcess?

        /// Ends the state; how a watcher ended is returned.
        func end() async throws -> HostileRunner.Ending? {
            await release()
            guard let watcher else { return nil }
            watcher.terminate()
            return try await HostileRunner.wait(for: watcher, within: .seconds(15))
        }
    }
}
