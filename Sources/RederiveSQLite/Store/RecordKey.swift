import Foundation
import GRDB

/// A record's key as rederive shows it, read safely from whatever SQLite holds in the key column:
/// SQLite lets any column hold any storage class, so a key column of an app's table may hold
/// integers, reals or blobs as well as text.
///
/// Text is the key as it is; a number is its decimal text (`42`, `2.5`); a blob is its text when it
/// holds UTF-8; a NULL, or a blob that is not UTF-8, is no key (the record is shown by its id).
enum RecordKey {
    /// The key stored in `value`, as text; nil for none.
    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .string(let text): text
        case .int64, .double: value.description
        case .blob(let data): String(bytes: data, encoding: .utf8)
        }
    }

    /// The key in `row` at `index`, as ``text(_:)`` reads it.
    static func text(_ row: Row, at index: Int) -> String? {
        text(row[index] as DatabaseValue)
    }

    /// The key in `row` in the column named `column`, as ``text(_:)`` reads it.
    static func text(_ row: Row, named column: String) -> String? {
        text(row[column] as DatabaseValue? ?? .null)
    }
}
