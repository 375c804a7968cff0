/// How a row read as text shows NULL, through GRDB on SQLite and through `psql` on PostgreSQL alike, so
/// that rows of either store compare.
package let nullCellText = "<NULL>"
