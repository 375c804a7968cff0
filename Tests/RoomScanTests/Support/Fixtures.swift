import Foundation

/// The real RoomPlan exports in `Fixtures/roomplan` and the values `Fixtures/expected_values.py`
/// computed for them into `Fixtures/expected.json`.
enum Fixtures {
    static let directory: URL = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("the test bundle has no Fixtures directory")
        }
        return url
    }()

    /// The file names of the exports, sorted.
    static let exportNames: [String] = {
        let names = try? FileManager.default.contentsOfDirectory(atPath: directory.appending(path: "roomplan").path)
        return (names ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }()

    /// The bytes of one export.
    static func export(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appending(path: "roomplan").appending(path: name)))
    }

    /// The expected column values: for each export, from column name to value.
    struct Expected {
        var fixtures: [String: [String: Any]]
        var ios16Variants: [String: [String: Any]]
    }

    static func expected() throws -> Expected {
        let data = try Data(contentsOf: directory.appending(path: "expected.json"))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let fixtures = root?["fixtures"] as? [String: [String: Any]],
              let variants = root?["ios16_variants"] as? [String: [String: Any]]
        else {
            throw FixtureError("expected.json does not hold fixtures and ios16_variants")
        }
        return Expected(fixtures: fixtures, ios16Variants: variants)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
