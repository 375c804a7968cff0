import Rederive
import Synchronization

/// The pipeline the checks derive, over a table `items` keyed by `key`, with what each store must
/// hold exactly:
/// - `total` (REAL `total`): the sum of `values`, times ``totalScale``; throws for the label
///   "explode" unless ``totalFixed`` (a bug fixed without a version bump, for a retry of failures).
/// - `edges` (REAL `not_a_number`, `negative_zero`, `integer_in_real` with default 0): values a store
///   holds otherwise than they are returned: NaN (held as NULL), −0.0 (held as 0.0), an integer in a
///   REAL column.
/// - `size` (TEXT `size`): from `total` alone, never the payload: "big" above 10, else "small"; NULL
///   (its default) for a total of 0.
///
/// A store's own tests may derive it too, beside the checks.
public struct ConformancePipeline: Sendable {
    /// The version of `total`.
    public var totalVersion: Int
    /// What `total` multiplies the sum by.
    public var totalScale: Double
    /// Whether `total` derives "explode" items rather than throw.
    public var totalFixed: Bool
    /// The version of `size`.
    public var sizeVersion: Int
    /// The version of the pipeline's projection, a `Codable` one of ``Item``; none when nil.
    public var projectionVersion: Int?
    /// Processors left out, by name: the pipeline as an app that no longer declares them has it.
    public var dropped: Set<String>
    /// How often each processor derived, by name.
    let derivations = Derivations()

    /// The pipeline with these versions, scale and projection.
    public init(
        totalVersion: Int = 1, totalScale: Double = 1, totalFixed: Bool = false, sizeVersion: Int = 1,
        projectionVersion: Int? = nil, dropped: Set<String> = []
    ) {
        self.totalVersion = totalVersion
        self.totalScale = totalScale
        self.totalFixed = totalFixed
        self.sizeVersion = sizeVersion
        self.projectionVersion = projectionVersion
        self.dropped = dropped
    }

    /// What the payloads hold.
    public struct Item: Codable, Sendable {
        /// The item's label; "explode" makes `total` throw.
        public let label: String
        /// The numbers `total` adds up.
        public let values: [Double]
    }

    /// What `total` throws for an item labelled "explode".
    struct Explosion: Error, CustomStringConvertible {
        var description: String { "refusing to total an exploding item" }
    }

    /// The payload of an item, plain JSON.
    public static func item(_ label: String, _ values: [Double]) -> [UInt8] {
        Array("{\"label\":\"\(label)\",\"values\":[\(values.map { String($0) }.joined(separator: ","))]}".utf8)
    }

    /// The pipeline, named `items`, with processors `total`, `edges` and `size` but those ``dropped``.
    public var pipeline: Pipeline {
        let derivations = self.derivations
        let scale = totalScale
        let fixed = totalFixed
        let dropped = self.dropped
        let total = Processor<Item>.real("total", version: totalVersion) { item in
            derivations.count("total")
            if item.label == "explode" && !fixed { throw Explosion() }
            return item.values.reduce(0, +) * scale
        }
        let edges = Processor<Item>(
            name: "edges", version: 1,
            columns: [.real("not_a_number"), .real("negative_zero"), .real("integer_in_real", default: 0)]
        ) { item in
            derivations.count("edges")
            return [.real(.nan), .real(-0.0), .integer(Int64(item.values.count) * 1_000)]
        }
        let size = Processor<Item>.text("size", version: sizeVersion, from: total.real) { total in
            derivations.count("size")
            guard let total, total != 0 else { return nil }
            return total > 10 ? "big" : "small"
        }
        return Pipeline(
            name: "items", table: "items", keyColumn: "key", decoding: Item.self,
            projection: projectionVersion.map { .codable(version: $0) },
            processors: [total, edges, size].filter { !dropped.contains($0.name) }
        )
    }

    /// The plan of every processor.
    public var plan: RunPlan { RunPlan(pipeline: pipeline) }

    /// The index of `total` in the pipeline.
    static let total = 0
    /// The index of `edges` in the pipeline.
    static let edges = 1
    /// The index of `size` in the pipeline.
    static let size = 2
}

/// Counts derivations per processor.
final class Derivations: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func count(_ processor: String) {
        counts.withLock { $0[processor, default: 0] += 1 }
    }

    subscript(_ processor: String) -> Int {
        counts.withLock { $0[processor] ?? 0 }
    }

    func reset() {
        counts.withLock { $0 = [:] }
    }
}
