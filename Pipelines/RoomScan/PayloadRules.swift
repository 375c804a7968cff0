/// The shape a payload's numbers must have, shared by every decoder so that they accept and reject
/// the same payloads.
package enum PayloadRules {
    /// Numbers in `dimensions` and in each polygon corner: a `simd_float3`.
    package static let vectorCount = 3
    /// Numbers in a `transform`: a `simd_float4x4`.
    package static let transformCount = 16
    /// The largest magnitude accepted for a coordinate or dimension, in metres. Nothing RoomPlan
    /// scans comes near it, and below it every derived value stays finite.
    package static let magnitudeLimit = 1_000_000.0

    /// Why `numbers` cannot be a list of `count` plan numbers, or `nil` when they can.
    package static func problem(with numbers: [Double], count: Int) -> String? {
        guard numbers.count == count else {
            return "expected \(count) numbers, found \(numbers.count)"
        }
        if let number = numbers.first(where: { !(abs($0) <= magnitudeLimit) }) {
            return "number \(number) is out of range (magnitude above \(Int(magnitudeLimit)))"
        }
        return nil
    }
}
