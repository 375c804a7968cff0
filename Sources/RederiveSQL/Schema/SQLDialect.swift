import Rederive

/// What differs between the SQL of the stores for the statements they share: quoting, literals,
/// column types and the definitions of the columns rederive creates. Each store declares one; the
/// statements built from it are the store's own, character for character.
package protocol SQLDialect: Sendable {
    /// A quoted identifier: `room_scans` becomes `"room_scans"`.
    static func identifier(_ name: String) -> String

    /// A quoted string literal with embedded quotes doubled, for names written where parameters
    /// cannot go (trigger bodies, DDL).
    static func literal(_ text: String) -> String

    /// A derived value as a literal, for column defaults.
    static func literal(_ value: DerivedValue) -> String

    /// The column type a derived column of `type` is declared with.
    static func columnType(_ type: ColumnType) -> String

    /// What follows a derived column's type in its definition for a default of `value`: ` DEFAULT …`,
    /// or nothing where a column without one holds `NULL`.
    static func defaultClause(_ value: DerivedValue) -> String

    /// The definition of the record id column of a table rederive creates, after its name.
    static var recordIDDefinition: String { get }

    /// The definition of a companion table's `id` column, which references `id` of `table` (both quoted).
    static func companionIDDefinition(referencing table: String, _ id: String) -> String

    /// The clause that adds a column to an existing table, after `ALTER TABLE name`.
    static var addColumn: String { get }

    /// The key of a record when its pipeline has no key column, as a selectable expression.
    static var missingKey: String { get }

    /// A column name as the database compares it, so that a column is found whatever case it was created with.
    static func comparable(_ columnName: String) -> String
}

extension SQLDialect {
    /// `name type …default` for a derived column, as written in `CREATE TABLE` and `ALTER TABLE ADD COLUMN`.
    package static func definition(of column: OutputColumn) -> String {
        "\(identifier(column.name)) \(columnType(column.type))\(defaultClause(column.defaultValue))"
    }
}
