import GRDB
import Rederive

extension [DatabaseValue] {
    /// Whether writing `values` into `columns` would leave these stored values as they are, by the
    /// store's rules (``SQLiteStorage/rules``), which a dry run and `verify` share.
    func isUnchanged(byStoring values: [DatabaseValue], in columns: [OutputColumn]) -> Bool {
        guard count == values.count, count == columns.count else { return false }
        return indices.allSatisfy { index in
            SQLiteStorage.rules.isUnchanged(DerivedValue(self[index]), byStoring: DerivedValue(values[index]), in: columns[index].type)
        }
    }
}
