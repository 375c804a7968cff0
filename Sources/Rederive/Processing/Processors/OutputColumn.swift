/// The kind of value an output column holds. Each store declares the column type it gives each kind
/// and how it holds the values written to it (``StorageRules``).
public enum ColumnType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A 64-bit signed integer.
    case integer
    /// A floating-point number.
    case real
    /// UTF-8 text.
    case text
    /// Bytes.
    case blob

    /// The type as messages and reports name it: `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var description: String {
        switch self {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

/// A derived column that one processor owns: its name, type and the default it holds before any derivation.
///
/// The default is what existing records hold when the column is added to an existing database, so
/// that a new processor never breaks a database that predates it.
///
/// ```swift
/// let area = OutputColumn.real("floor_area_sqm")
/// let walls = OutputColumn.integer("wall_count")
/// let labels = OutputColumn.text("section_labels", default: "[]")
/// ```
public struct OutputColumn: Sendable, Hashable {
    /// The column's name in the table that holds derived values.
    public var name: String
    /// The column's type, which every value the processor returns must fit.
    public var type: ColumnType
    /// What the column holds before any derivation, and after `rederive reset`.
    public var defaultValue: DerivedValue

    /// A column of `type` named `name`, holding `defaultValue` until a processor derives it.
    public init(name: String, type: ColumnType, defaultValue: DerivedValue = .null) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
    }

    /// An ``ColumnType/integer`` column, `NULL` by default unless `value` is given.
    public static func integer(_ name: String, default value: Int64? = nil) -> OutputColumn {
        OutputColumn(name: name, type: .integer, defaultValue: value.map(DerivedValue.integer) ?? .null)
    }

    /// A ``ColumnType/real`` column, `NULL` by default unless `value` is given.
    public static func real(_ name: String, default value: Double? = nil) -> OutputColumn {
        OutputColumn(name: name, type: .real, defaultValue: value.map(DerivedValue.real) ?? .null)
    }

    /// A ``ColumnType/text`` column, `NULL` by default unless `value` is given.
    public static func text(_ name: String, default value: String? = nil) -> OutputColumn {
        OutputColumn(name: name, type: .text, defaultValue: value.map(DerivedValue.text) ?? .null)
    }

    /// A ``ColumnType/blob`` column, `NULL` by default.
    public static func blob(_ name: String) -> OutputColumn {
        OutputColumn(name: name, type: .blob)
    }
}
