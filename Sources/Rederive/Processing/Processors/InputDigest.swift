/// A 64-bit digest of the values a dependent processor derived from, kept in its stamp: when its inputs
/// are derived again, the dependent is derived again only if the digest of their new values differs.
///
/// Values are digested as their columns hold them in the store (``StorageRules/stored(_:in:)``), so
/// an input re-derived to values a commit would count unchanged leaves the digest unchanged.
public enum InputDigest {
    /// The FNV-1a digest of `values`, each as a column of the type at the same position holds it
    /// under `rules`.
    public static func of(_ values: [DerivedValue], types: [ColumnType], storedBy rules: StorageRules) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        func mix(_ number: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        }
        func mix(_ bytes: some Sequence<UInt8>, count: Int) {
            mix(UInt64(count))
            for byte in bytes { mix(byte) }
        }
        for (value, type) in zip(values, types) {
            switch rules.stored(value, in: type) {
            case .null: mix(UInt8(0))
            case .integer(let number): mix(UInt8(1)); mix(UInt64(bitPattern: number))
            case .real(let number): mix(UInt8(2)); mix(number.bitPattern)
            case .text(let text): mix(UInt8(3)); mix(text.utf8, count: text.utf8.count)
            case .blob(let bytes): mix(UInt8(4)); mix(bytes, count: bytes.count)
            }
        }
        return Int64(bitPattern: hash)
    }
}
