/// The SQL type of an output column.
public enum ColumnType: String, Sendable, Hashable, CaseIterable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"
}

/// A derived column that one processor owns: its name, SQL type and the default it holds before any derivation.
///
/// The default is what `ALTER TABLE ADD COLUMN` gives existing records when the column is added to an
/// existing database, so that a new processor never breaks a database that predates it.
///
/// ```swift
/// let area = OutputColumn.real("floor_area_sqm")
/// let walls = OutputColumn.integer("wall_count")
/// let labels = OutputColumn.text("section_labels", default: "[]")
/// ```
public struct OutputColumn: Sendable, Hashable {
    public var name: String
    public var type: ColumnType
    public var defaultValue: DerivedValue

    public init(name: String, type: ColumnType, defaultValue: DerivedValue = .null) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
    }

    public static func integer(_ name: String, default value: Int64? = nil) -> OutputColumn {
        OutputColumn(name: name, type: .integer, defaultValue: value.map(DerivedValue.integer) ?? .null)
    }

    public static func real(_ name: String, default value: Double? = nil) -> OutputColumn {
        OutputColumn(name: name, type: .real, defaultValue: value.map(DerivedValue.real) ?? .null)
    }

    public static func text(_ name: String, default value: String? = nil) -> OutputColumn {
        OutputColumn(name: name, type: .text, defaultValue: value.map(DerivedValue.text) ?? .null)
    }

    public static func blob(_ name: String) -> OutputColumn {
        OutputColumn(name: name, type: .blob)
    }
}
