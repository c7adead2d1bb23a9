import GRDB

extension Row {
    /// The value in `column` as `Value`: nil when it is NULL, missing, or of a type SQLite
    /// allowed but `Value` cannot take (text where Core Data keeps an integer, say). GRDB's
    /// own typed subscript stops the process on a failed conversion, and a store is user
    /// input: a hand-edited or damaged one must still read. (`package`: the store writer in
    /// StoreCreation reads the same way.)
    package func lenient<Value: DatabaseValueConvertible>(_ column: String, as type: Value.Type = Value.self) -> Value? {
        let value: DatabaseValue? = self[column]
        return value.flatMap { Value.fromDatabaseValue($0) }
    }

    /// The value at `index`, as `lenient(_:as:)` reads a named column.
    package func lenient<Value: DatabaseValueConvertible>(_ index: Int, as type: Value.Type = Value.self) -> Value? {
        guard index < count else { return nil }
        let value: DatabaseValue = self[index]
        return Value.fromDatabaseValue(value)
    }
}
