/// What is compared of one entity: the attributes both stores keep in columns, its to-one
/// relationships' key columns and its to-many relationships' member pairs (when matched by
/// primary key), and how objects are matched.
struct EntityPlan {
    struct Attribute {
        let name: String
        let description: AttributeDescription
        let columnA: String
        let columnB: String
    }

    struct ToOne {
        let name: String
        let destination: String
        let columnA: String
        let columnB: String
        /// `Z<n>_<R>`, naming the destination's concrete entity, when it has sub-entities.
        let entityColumn: String?
    }

    /// A to-many as pairs of (owner, member) primary keys in a table: a join table, or the
    /// destination's key column pointing back at the owner.
    struct ToMany {
        let name: String
        let destination: String
        let table: String
        let owner: String
        let member: String
        /// The position column of an ordered relationship.
        let order: String?
    }

    let entity: EntityMapping
    let other: EntityMapping
    let matching: StoreDiff.Matching
    let attributes: [Attribute]
    let toOnes: [ToOne]
    let toManys: [ToMany]

    init(_ entity: EntityMapping, _ other: EntityMapping, matching: StoreDiff.Matching) {
        self.entity = entity
        self.other = other
        self.matching = matching
        attributes = entity.attributes.compactMap { a in
            guard let column = a.column, let otherColumn = other.attribute(a.attribute.name)?.column else { return nil }
            return Attribute(name: a.attribute.name, description: a.attribute, columnA: column, columnB: otherColumn)
        }
        guard matching == .primaryKey else {
            toOnes = []
            toManys = []
            return
        }
        var toOnes: [ToOne] = []
        var toManys: [ToMany] = []
        for r in entity.relationships {
            guard let mirror = other.relationship(r.relationship.name), mirror.storage == r.storage else { continue }
            switch r.storage {
            case .foreignKey(let column, let entityColumn):
                toOnes.append(ToOne(name: r.relationship.name, destination: r.relationship.destinationEntityName, columnA: column, columnB: column,
                                    entityColumn: entityColumn))
            case .inverseForeignKey(let table, let column, let order), .hiddenForeignKey(let table, let column, let order):
                toManys.append(ToMany(name: r.relationship.name, destination: r.relationship.destinationEntityName,
                                      table: table, owner: column, member: "Z_PK", order: order))
            case .joinTable(let table, let source, let destination, let order):
                toManys.append(ToMany(name: r.relationship.name, destination: r.relationship.destinationEntityName,
                                      table: table, owner: source, member: destination, order: order))
            case .none:
                continue
            }
        }
        self.toOnes = toOnes
        self.toManys = toManys
    }

    /// `schema.TABLE alias`: the entity's table in one store (`main` is A, `other` B).
    func table(_ schema: String, _ alias: String) -> String {
        "\(schema).\(SQL.identifier(mapping(schema).table)) \(alias)"
    }

    /// The condition that keeps this entity's own rows (not its sub-entities') of the table.
    func own(_ schema: String, _ alias: String) -> String {
        let mapping = mapping(schema)
        guard let column = mapping.entityColumn, let id = mapping.entityID else { return "1" }
        return "\(alias).\(SQL.identifier(column)) = \(id)"
    }

    private func mapping(_ schema: String) -> EntityMapping { schema == "main" ? entity : other }
}
