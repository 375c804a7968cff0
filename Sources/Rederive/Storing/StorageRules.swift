/// How a store holds the values rederive writes: the few values that it keeps as another value, and
/// so the one definition of "the value is unchanged" that committing a run, a dry run's tally,
/// `verify` and the digest of a dependent's inputs share on that store.
///
/// A store declares its rules (``StoredValueReading/storageRules``) and keeps to them: every value
/// that fits a column (``DerivedValue/fits(_:)``) reads back as ``stored(_:in:)`` says. Two stores
/// with the same rules hold the same values, so a database moved from one to the other derives
/// nothing again. The SQLite and PostgreSQL stores both declare every rule below.
public struct StorageRules: Sendable, Hashable {
    /// A NaN is held as `null`, in a column of any type.
    public var nanIsNull: Bool
    /// In a ``ColumnType/real`` column an integer is held as a real: `8` reads back as `8.0`, an
    /// integer beyond 2^53 as the nearest double, which is what `Double(value)` gives.
    public var realColumnsHoldIntegersAsReals: Bool
    /// In a ``ColumnType/real`` column `-0.0` is held as `0.0`.
    public var realZeroHasNoSign: Bool

    /// Rules that turn the values named into others; every other value is held as it is.
    public init(nanIsNull: Bool, realColumnsHoldIntegersAsReals: Bool, realZeroHasNoSign: Bool) {
        self.nanIsNull = nanIsNull
        self.realColumnsHoldIntegersAsReals = realColumnsHoldIntegersAsReals
        self.realZeroHasNoSign = realZeroHasNoSign
    }

    /// A store that holds every value exactly as it is given.
    public static let exact = StorageRules(nanIsNull: false, realColumnsHoldIntegersAsReals: false, realZeroHasNoSign: false)

    /// The value a column of `type` holds once `value` is stored in it.
    ///
    /// ```swift
    /// let rules = StorageRules(nanIsNull: true, realColumnsHoldIntegersAsReals: true, realZeroHasNoSign: true)
    /// rules.stored(.integer(8), in: .real)       // .real(8.0)
    /// rules.stored(.real(.nan), in: .real)        // .null
    /// ```
    public func stored(_ value: DerivedValue, in type: ColumnType) -> DerivedValue {
        switch (value, type) {
        case (.real(let number), _) where number.isNaN && nanIsNull: .null
        case (.real(let number), .real) where number == 0 && realZeroHasNoSign: .real(0)
        case (.integer(let number), .real) where realColumnsHoldIntegersAsReals: .real(Double(number))
        default: value
        }
    }

    /// Whether storing `new` in a column of `type` that holds `held` would leave the column holding
    /// what it holds now.
    ///
    /// Both sides are compared as the column holds them (``stored(_:in:)``): under rules that hold a
    /// NaN as `null`, a NaN replacing `NULL` leaves the value unchanged, so a run counts the record
    /// unchanged, a dry run does not count a change, and `verify` finds no difference. Reals are
    /// compared bit for bit, text byte for byte: two spellings of `é` that Swift's `String` equality
    /// calls equal (precomposed, or `e` and a combining accent) are different values in a database.
    public func isUnchanged(_ held: DerivedValue, byStoring new: DerivedValue, in type: ColumnType) -> Bool {
        switch (stored(held, in: type), stored(new, in: type)) {
        case (.real(let holding), .real(let storing)): holding.bitPattern == storing.bitPattern
        case (.text(let holding), .text(let storing)): holding.utf8.elementsEqual(storing.utf8)
        case (let holding, let storing): holding == storing
        }
    }
}
