import Rederive

/// Realistic synthetic RoomPlan exports, for filling test databases with `rederive generate`.
///
/// Scans are deterministic: the same seed and index always give the same bytes. Their sizes,
/// counts and shapes follow the real exports in the test fixtures: a base64 `coreModel` making up
/// 60–93 % of the bytes, rectangular and L-shaped rooms whose walls run along the floor outline,
/// doors, windows and openings on the walls, furniture inside, partial scans with walls or the
/// floor outline missing, iOS 16 style scans without floors or sections, and both encodings
/// Apple's `JSONEncoder` writes (compact with unsorted keys, and pretty-printed with sorted keys),
/// with `/` escaped as `\/`.
///
/// ```swift
/// let generator = RoomScanGenerator(seed: 42)
/// let json = generator.scan(at: 0)
/// let (broken, defect) = generator.brokenScan(at: 1)
/// ```
public struct RoomScanGenerator: Sendable {
    /// What kind of scan an index produces.
    public struct Traits: Sendable, Hashable {
        /// The outline of the room's floor.
        public enum Shape: String, Sendable, Hashable, CaseIterable {
            /// Four walls at right angles.
            case rectangular
            /// A rectangle with a notch out of one corner: six walls.
            case lShaped
        }

        /// The outline of the room's floor.
        public var shape: Shape
        /// Whether some walls, or the floor's outline, are missing, as when a scan is cut short.
        public var isPartial: Bool
        /// Whether the scan has no `floors`, `sections`, `story`, `polygonCorners`,
        /// `parentIdentifier` or `attributes`, as on iOS 16.
        public var isIOS16: Bool
        /// Whether the JSON is pretty-printed with sorted keys rather than compact and unsorted.
        public var isPrettyPrinted: Bool
    }

    /// The seed every scan is derived from, with its index.
    public let seed: UInt64

    /// A generator whose scans are determined by `seed`.
    public init(seed: UInt64) {
        self.seed = seed
    }

    /// The kind of scan at `index`.
    public func traits(at index: Int) -> Traits {
        var random = generator(for: index, stream: 0)
        return Traits(
            shape: Double.random(in: 0 ..< 1, using: &random) < 0.6 ? .rectangular : .lShaped,
            isPartial: Double.random(in: 0 ..< 1, using: &random) < 0.15,
            isIOS16: Double.random(in: 0 ..< 1, using: &random) < 0.15,
            isPrettyPrinted: Bool.random(using: &random)
        )
    }

    /// The UTF-8 JSON of the scan at `index`.
    public func scan(at index: Int) -> [UInt8] {
        let traits = traits(at: index)
        return room(at: index, traits: traits).encoded(traits.isPrettyPrinted ? .prettySorted : .compact)
    }

    /// The room at `index` as a JSON tree.
    func room(at index: Int, traits: Traits) -> JSONTree {
        var random = generator(for: index, stream: 1)
        return GeneratedRoom(traits: traits, using: &random).tree(traits: traits, using: &random)
    }

    /// An independent random stream for one index and purpose.
    func generator(for index: Int, stream: UInt64) -> SplitMix64 {
        SplitMix64(seed: seed ^ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15, stream: stream)
    }
}
