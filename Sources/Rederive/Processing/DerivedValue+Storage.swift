/// What a column holds once a value is stored in it: the one definition of "the value is unchanged"
/// that committing a run, a dry run's tally and `verify` share, so that they never disagree about
/// whether a value changed.
extension DerivedValue {
    /// The value as a column of `type` holds it once SQLite has stored it.
    ///
    /// SQLite's rules for the values that fit a column (``fits(_:)``), the only ones rederive writes,
    /// as checked by storing and reading back each case with SQLite 3.40:
    /// - A NaN is stored as `NULL`, in a column of any type (SQLite binds a NaN as `NULL`).
    /// - In a `REAL` column an integer is stored as a real: `8` reads back as `8.0`, and an integer
    ///   beyond 2^53 as the nearest double, which is what `Double(value)` gives.
    /// - In a `REAL` column a real with an integral value stays a real: `8.0` reads back as `8.0`
    ///   (SQLite writes it to disk as an integer and converts it back when reading it).
    /// - In a `REAL` column `-0.0` reads back as `0.0`: written as the integer 0, it loses its sign.
    ///
    /// Every other value is held as it is: integers in `INTEGER` columns, text byte for byte, blobs.
    ///
    /// ```swift
    /// DerivedValue.integer(8).stored(in: .real)       // .real(8.0)
    /// DerivedValue.real(.nan).stored(in: .real)        // .null
    /// ```
    public func stored(in type: ColumnType) -> DerivedValue {
        switch (self, type) {
        case (.real(let value), _) where value.isNaN: .null
        case (.real(let value), .real) where value == 0: .real(0)
        case (.integer(let value), .real): .real(Double(value))
        default: self
        }
    }

    /// Whether storing `new` in a column of `type` that holds this value would leave the column
    /// holding what it holds now.
    ///
    /// Both sides are compared as the column holds them (``stored(in:)``): a NaN replacing `NULL`,
    /// `8` replacing `8.0` in a `REAL` column and `-0.0` replacing `0.0` leave the value unchanged,
    /// so a run counts the record unchanged, a dry run does not count a change, and `verify` finds
    /// no difference. Text is compared byte for byte, as SQLite stores it: two spellings of `é`
    /// that Swift's `String` equality calls equal (precomposed, or `e` and a combining accent) are
    /// different values in the database.
    ///
    /// ```swift
    /// DerivedValue.real(8).isUnchanged(byStoring: .integer(8), in: .real)     // true
    /// DerivedValue.null.isUnchanged(byStoring: .real(.nan), in: .real)        // true
    /// DerivedValue.integer(8).isUnchanged(byStoring: .integer(9), in: .integer) // false
    /// ```
    public func isUnchanged(byStoring new: DerivedValue, in type: ColumnType) -> Bool {
        switch (stored(in: type), new.stored(in: type)) {
        case (.text(let held), .text(let storing)): held.utf8.elementsEqual(storing.utf8)
        case (let held, let storing): held == storing
        }
    }
}
