import Foundation

/// The package's root directory, found from this file's path: the first directory above it that holds
/// `Package.swift`, wherever in the tests a file that asks for it sits.
package enum PackageRoot {
    package static let url: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    /// A path inside the package, as `docs/postgresql.md`.
    package static func appending(_ path: String) -> URL {
        url.appendingPathComponent(path)
    }
}
