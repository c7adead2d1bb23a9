/// A table and its columns read back in the model's terms: the entity a table holds and the
/// property a column stores, for what names tables and columns only (a query plan, a
/// statement from an app's log, SQLite's statistics). Names compare as SQLite compares them
/// (`SchemaSnapshot.sameName`).
extension StoreMapping {
    /// The entities whose rows `table` holds: a root and the entities below it.
    public func entities(inTable table: String) -> [EntityMapping] {
        entities.filter { SchemaSnapshot.sameName($0.table, table) }
    }

    /// The entity at the top of `table`: the one whose parent's rows are not in it.
    public func rootEntity(ofTable table: String) -> EntityMapping? {
        let held = entities(inTable: table)
        return held.first { candidate in candidate.superentityName == nil || !held.contains { $0.name == candidate.superentityName } }
    }

    /// The property `column` of `table` stores: an attribute, or a to-one by its key; nil for
    /// any other column.
    public func propertyName(ofColumn column: String, inTable table: String) -> String? {
        for entity in entities(inTable: table) {
            if let a = entity.attributes.first(where: { $0.column.map { SchemaSnapshot.sameName($0, column) } ?? false }) {
                return a.attribute.name
            }
            for r in entity.relationships {
                if case .foreignKey(let key, _) = r.storage, SchemaSnapshot.sameName(key, column) { return r.relationship.name }
            }
        }
        return nil
    }
}
