/// SplitMix64: a small, fast, deterministic generator, so that a seed always yields the same corpus.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for one record of a corpus, independent of how many records came before.
    init(seed: UInt64, index: Int) {
        var mixer = SeededRandom(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<2 { _ = mixer.next() }
        state = mixer.next() &+ UInt64(truncatingIfNeeded: index) &* 0xBF58_476D_1CE4_E5B9
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
