import Foundation

/// The real RoomPlan exports kept with the RoomScan tests, and their independently computed values.
package enum RealExports {
    package static let directory = PackageRoot.appending("Tests/RoomScanTests/Fixtures")

    package static var exportsDirectory: String { directory.appendingPathComponent("roomplan").path }

    package static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: exportsDirectory)) ?? [])
            .filter { $0.hasSuffix(".json") }
            .sorted()
    }

    package static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: exportsDirectory).appendingPathComponent(name)))
    }

    /// Column values per file name, computed by `expected_values.py`.
    package static func expected() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: directory.appendingPathComponent("expected.json"))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return root?["fixtures"] as? [String: [String: Any]] ?? [:]
    }
}
