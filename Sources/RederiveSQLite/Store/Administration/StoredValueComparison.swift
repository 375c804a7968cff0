import Rederive

extension [DerivedValue] {
    /// Whether writing `values` into `columns` would leave these stored values as they are, by the
    /// store's rules (``SQLiteStorage/rules``), which a dry run and `verify` share.
    func isUnchanged(byStoring values: [DerivedValue], in columns: [OutputColumn]) -> Bool {
        guard count == values.count, count == columns.count else { return false }
        return indices.allSatisfy { index in
            SQLiteStorage.rules.isUnchanged(self[index], byStoring: values[index], in: columns[index].type)
        }
    }
}
