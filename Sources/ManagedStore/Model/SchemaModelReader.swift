/// Builds a model from the schema alone, for stores that carry no model cache and were
/// opened without `--model`, and for SQLite files that Core Data never wrote.
public enum SchemaModelReader {
    /// Reserved entity ids (persistent history) that have no user-facing entity.
    static let reservedEntityIDs: ClosedRange<Int> = 16000...19999

    /// Core Data store without a cache: entity names and hierarchy from `Z_PRIMARYKEY`,
    /// attributes from the root table's columns (all declared on the root: the schema cannot
    /// say which sub-entity owns a column), to-one relationships from indexed key columns
    /// whose name is an entity's.
    public static func coreDataModel(_ schema: SchemaSnapshot, source: ModelSource = .schema) -> ManagedObjectModel {
        let rows = schema.primaryKeys.filter { !reservedEntityIDs.contains($0.entityID) }
        let byID = Dictionary(rows.map { ($0.entityID, $0) }, uniquingKeysWith: { a, _ in a })
        var entities: [EntityDescription] = []
        for row in rows {
            // A damaged Z_SUPER can lead back to the row itself; such a row is taken as a root.
            var ancestor = byID[row.superID], steps = 0
            while let a = ancestor, a.entityID != row.entityID, steps <= rows.count { ancestor = byID[a.superID]; steps += 1 }
            let parent = ancestor == nil ? byID[row.superID]?.name : nil
            var entity = EntityDescription(name: row.name, className: nil, isAbstract: false, superentityName: parent)
            if parent == nil, let table = schema.table("Z" + row.name.uppercased()) {
                for column in table.columns where isModelColumn(column.name) {
                    let bare = String(column.name.dropFirst())
                    let target = rows.first { $0.name.uppercased() == bare && $0.superID == 0 }
                    let indexed = schema.indexNames.contains("\(table.name)_\(column.name)_INDEX")
                    if let target, indexed, AttributeType(declaredSQLType: column.declaredType).isInteger {
                        entity.properties.append(.relationship(RelationshipDescription(
                            name: bare.lowercased(), destinationEntityName: target.name, inverseName: nil)))
                    } else {
                        entity.properties.append(.attribute(AttributeDescription(
                            name: bare.lowercased(), type: AttributeType(declaredSQLType: column.declaredType),
                            isOptional: !column.notNull)))
                    }
                }
            }
            entities.append(entity)
        }
        return ManagedObjectModel(entities: entities, source: source)
    }

    /// A plain SQLite file: every table an entity, every column an attribute, every
    /// declared foreign key a to-one relationship.
    public static func plainModel(_ schema: SchemaSnapshot) -> ManagedObjectModel {
        let entities = schema.tables.filter { !$0.isVirtual && !isShadowTable($0.name, schema) }.map { table in
            EntityDescription(name: table.name, properties: table.columns.map { column in
                if let fk = table.foreignKeys.first(where: { $0.column == column.name }), schema.table(fk.table) != nil {
                    return .relationship(RelationshipDescription(
                        name: column.name, destinationEntityName: schema.table(fk.table)!.name, inverseName: nil))
                }
                return .attribute(AttributeDescription(
                    name: column.name, type: AttributeType(declaredSQLType: column.declaredType),
                    isOptional: !column.notNull && column.primaryKeyIndex == 0))
            })
        }
        return ManagedObjectModel(entities: entities, source: .plainSQLite)
    }

    /// Columns Core Data adds for its own bookkeeping rather than for a property.
    static func isModelColumn(_ name: String) -> Bool {
        guard name.hasPrefix("Z"), !["Z_PK", "Z_ENT", "Z_OPT"].contains(name), !name.hasPrefix("Z_FOK_") else { return false }
        let rest = name.dropFirst()
        // Z<n>_<R> entity columns and Z<n><R> hidden foreign keys start with a digit.
        return !(rest.first?.isNumber ?? true)
    }

    /// R-tree and FTS shadow tables belong to their virtual table, not to the user.
    static func isShadowTable(_ name: String, _ schema: SchemaSnapshot) -> Bool {
        schema.tables.contains { $0.isVirtual && name.hasPrefix($0.name + "_") }
    }
}
