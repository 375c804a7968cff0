/// How much output decoding one payload wrote, over every inflate attempt: how tests tell that a
/// decompression bomb was stopped at the limit rather than inflated in full.
///
/// An attempt that ends early (out of room, or on bad data) counts its whole output buffer, the most
/// it can have written; libdeflate starts over with a larger buffer, so its attempts add up.
package struct InflationWork: Sendable, Hashable {
    /// Bytes of inflated output written, or buffer offered to an attempt that stopped early.
    package var outputBytes = 0

    package init() {}
}
