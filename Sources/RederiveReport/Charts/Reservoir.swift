import Rederive

/// A bounded, uniform and reproducible sample of a stream: at most ``capacity`` elements, each
/// element seen with the same chance of being kept (Vitter's algorithm R), with a seeded generator,
/// so that the same stream gives the same sample on every run and machine.
///
/// Reports chart distributions from samples so that their cost does not grow with the table, and
/// say how large the sample is.
public struct Reservoir<Element: Sendable>: Sendable {
    /// The most elements the sample holds.
    public let capacity: Int
    /// The sample, in no particular order.
    public private(set) var elements: [Element] = []
    /// How many elements the stream has had.
    public private(set) var seen = 0
    private var generator: SplitMix64

    /// An empty sample of at most `capacity` elements, chosen with a generator seeded with `seed`.
    public init(capacity: Int, seed: UInt64 = 0x5EED) {
        precondition(capacity >= 1, "a sample holds at least one element")
        self.capacity = capacity
        generator = SplitMix64(seed: seed)
    }

    /// Offers the next element of the stream.
    public mutating func add(_ element: Element) {
        seen += 1
        if elements.count < capacity {
            elements.append(element)
            return
        }
        let slot = Int(generator.next() % UInt64(seen))
        if slot < capacity {
            elements[slot] = element
        }
    }

    /// Whether the sample holds every element the stream had.
    public var isComplete: Bool { seen == elements.count }
}
