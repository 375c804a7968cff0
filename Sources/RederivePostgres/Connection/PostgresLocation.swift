#if PostgreSQL
import Foundation
import Rederive

/// Where a PostgreSQL database is and how to reach it, from a `postgres://` URL:
/// `postgres://user[:password]@host[:port]/database?sslmode=require`.
///
/// The password comes from the URL, else `$PGPASSWORD`, else the first matching line of `~/.pgpass`
/// (or `$PGPASSFILE`), as libpq reads them. It is never part of ``description``: messages, logs and
/// progress name the database by ``description`` only.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How strictly TLS is asked for, as libpq's `sslmode` says it.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Never TLS.
        case disable
        /// Plain first; TLS only if the server insists.
        case allow
        /// TLS when the server offers it, plain otherwise (libpq's default).
        case prefer
        /// TLS always, without checking the server's certificate.
        case require
        /// TLS always, with a certificate signed by a trusted root.
        case verifyCA = "verify-ca"
        /// TLS always, with a trusted certificate whose name matches the host.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address.
    public let host: String
    /// The server's port, 5432 unless the URL says otherwise.
    public let port: Int
    /// The role to connect as.
    public let user: String
    /// The database's name.
    public let database: String
    /// How strictly TLS is asked for (`sslmode`).
    public let tlsMode: TLSMode
    /// A PEM file of trusted root certificates for `verify-ca` and `verify-full` (`sslrootcert`).
    public let rootCertificate: String?
    let password: String?
    /// Why the password file was ignored, as libpq warns: others may read it. Nil when it was read,
    /// is missing, or was not needed.
    public let passwordFileWarning: String?

    /// True for the URLs this store opens: `postgres://` and `postgresql://`.
    public static func isPostgresURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Parses a URL, reading the password and defaults from the environment as libpq does.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw RederiveError(.invalidArgument, "not a PostgreSQL URL (postgres://user@host:port/database): \(Self.redacted(text))")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGHOST"] ?? "localhost"
        port = components.port ?? environment["PGPORT"].flatMap(Int.init) ?? 5432
        user = components.user.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGDATABASE"] ?? user
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let mode = query["sslmode"] ?? environment["PGSSLMODE"] ?? TLSMode.prefer.rawValue
        guard let tlsMode = TLSMode(rawValue: mode) else {
            throw RederiveError(
                .invalidArgument,
                "sslmode \"\(mode)\" is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")) in \(Self.redacted(text))"
            )
        }
        self.tlsMode = tlsMode
        rootCertificate = query["sslrootcert"] ?? environment["PGSSLROOTCERT"]
        let given = components.password.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"]
        let passwordFile = environment["PGPASSFILE"] ?? Self.defaultPasswordFile(environment)
        password = given ?? PasswordFile(path: passwordFile)?.password(host: host, port: port, database: database, user: user)
        passwordFileWarning = given == nil ? PasswordFile.permissionsProblem(path: passwordFile) : nil
    }

    /// `postgres://user@host:port/database`: the location without its password, for every message.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// A URL as given, with any password replaced by `***`, for messages about URLs that did not parse.
    public static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return text }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    private static func defaultPasswordFile(_ environment: [String: String]) -> String {
        (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
    }
}

/// `~/.pgpass`: lines of `host:port:database:user:password`, `*` matching anything, `\:` and `\\`
/// escaped. libpq ignores the file when others may read it; so does this.
struct PasswordFile {
    let lines: [[String]]

    init?(path: String) {
        guard let permissions = Self.permissions(path), permissions & 0o077 == 0,
              let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        lines = text.split(whereSeparator: \.isNewline).compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = Self.fields(of: line)
            return fields.count == 5 ? fields : nil
        }
    }

    /// What libpq warns of a file at `path` that others may read, and which it ignores; nil when
    /// there is no such file or only its owner may read it.
    static func permissionsProblem(path: String) -> String? {
        guard let permissions = permissions(path), permissions & 0o077 != 0 else { return nil }
        return "password file \(path) has group or world access, so it is ignored; "
            + "permissions should be u=rw (0600) or less (chmod 600 \(path))"
    }

    private static func permissions(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    func password(host: String, port: Int, database: String, user: String) -> String? {
        let wanted = [host, String(port), database, user]
        return lines.first { fields in
            zip(fields.prefix(4), wanted).allSatisfy { $0 == "*" || $0 == $1 }
        }?[4]
    }

    private static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":", fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
#endif
