/// The order in which Core Data visits relationships when it pairs each with its inverse, as
/// it turns a model into tables. Two things in a store follow that order rather than any name
/// order: which of two many-to-many relationships names their join table (the first visited),
/// and the order of several order keys (`Z_FOK_…`) on one table (they are added as visited).
///
/// What Core Data does, as far as the stores show it:
/// - It visits the entities by name (sub-entities among them), and in each entity every
///   relationship it has, its inherited ones too: Photos' Album, a sub-entity of GenericAlbum,
///   comes before AlbumList and Asset, so GenericAlbum's `albumLists` and `keyAssets` name
///   their join tables (`Z_29ALBUMLISTS`, `Z_29KEYASSETS`) though AlbumList and Asset sort
///   before GenericAlbum.
/// - Within an entity it visits the properties in the bucket order of a `SizedPropertyDictionary`
///   made for as many keys as the entity's property table holds, filled in the bucket order of
///   that table, a `GrowingPropertyDictionary`. The table holds `_ent`, `_pk` and `_opt` (a
///   sub-entity starts from a copy of its parent's instead), then the stored attributes in the
///   bucket order of a dictionary of the attribute names, then the relationships in the bucket
///   order of a dictionary of their names: a to-one as its key's name (`_` and its column),
///   its entity-number column's, and its own; a to-many as its own name.
/// - Visiting a to-one whose inverse is an ordered to-many files its order key under the
///   entity and its sub-entities; visiting a to-many without an inverse files a key and its
///   relationship under the destination. An entity visited later counts them among its keys.
///
/// Checked against every many-to-many of Wire's 80 stores (frameworks 640 to 1145; UserClient
/// names `Z_25TRUSTEDCLIENTS` until 2.95.0 and `Z_25TRUSTEDBYCLIENTS` from 2.96.0, when one
/// attribute more moves `trustedClients` behind `trustedByClients`, and keeps
/// `Z_25IGNOREDCLIENTS` throughout), DuckDuckGo's and the fixtures' (Photos included): 800
/// join tables, each named as the walk says; and every table with more than one order key that
/// Core Data laid out fresh (DuckDuckGo's `ZBOOKMARKENTITY`, Wire's `ZMESSAGE` and
/// `ZGENERICMESSAGEDATA`, Photos' `ZASSET`, four keys, and `ZCLOUDSHAREDCOMMENT`). Read from a
/// decompilation of CoreData.framework for what to verify; the names of the order keys and of
/// the keys for a to-many without an inverse are not seen in any store, so they are this
/// walk's assumptions (they move only a collision).
struct PropertyWalk {
    /// One relationship as Core Data visits it: on `entity`, declared by `declaredBy`.
    struct Visit {
        let entity: String
        let declaredBy: String
        let relationship: RelationshipDescription
    }

    /// Every visit, entities by name, each entity's relationships in its walk's order.
    private(set) var visits: [Visit] = []
    /// The position of each relationship's visit on the entity that declares it, by
    /// `entity.relationship`.
    private var ownVisits: [String: Int] = [:]

    /// - Parameter column: the column of a property, by its declaring entity and its name.
    init(model: ManagedObjectModel, ids: [String: Int], column: (String, String) -> String) {
        var tables: [String: GrowingPropertyDictionary] = [:]
        let parents = Set(model.entities.compactMap(\.superentityName))
        func generated(_ name: String) -> GrowingPropertyDictionary {
            if let made = tables[name] { return made }
            var table = GrowingPropertyDictionary()
            if let parent = model.entity(named: name)?.superentityName, model.entity(named: parent) != nil, parent != name,
               !model.ancestors(of: parent).contains(where: { $0.name == name }) {
                for key in generated(parent).keys { table.insert(key) }
            } else {
                for key in ["_ent", "_pk", "_opt"] { table.insert(key) }
            }
            let all = model.allProperties(of: name)
            var attributes = GrowingPropertyDictionary(), relationships = GrowingPropertyDictionary()
            var stored: [String: [String]] = [:]
            for (property, declaredBy) in all.sorted(by: { $0.property.name < $1.property.name }) {
                switch property {
                case .attribute(let a):
                    attributes.insert(a.name)
                    if !a.isTransient { stored[a.name] = property.flattened.map(\.name) }
                case .relationship(let r):
                    relationships.insert(r.name)
                    guard !r.isTransient else { continue }
                    if r.isToMany {
                        stored[r.name] = [r.name]
                    } else {
                        let key = column(declaredBy, r.name)
                        var keys = ["_" + key]
                        if parents.contains(r.destinationEntityName), let destination = ids[r.destinationEntityName] {
                            keys.append("_Z\(destination)_" + key.dropFirst())
                        }
                        stored[r.name] = keys + [r.name]
                    }
                case .fetched:
                    break
                }
            }
            for name in attributes.keys + relationships.keys { for key in stored[name] ?? [] { table.insert(key) } }
            tables[name] = table
            return table
        }
        let entities = model.entities.map(\.name).sorted()
        for name in entities { _ = generated(name) }
        for name in entities {
            let keys = tables[name]?.keys ?? []
            var sized = SizedPropertyDictionary(capacity: keys.count)
            for key in keys { sized.insert(key) }
            let relationships = Dictionary(model.allProperties(of: name).compactMap { entry -> (String, (RelationshipDescription, String))? in
                guard case .relationship(let r) = entry.property, !r.isTransient else { return nil }
                return (r.name, (r, entry.declaredBy))
            }, uniquingKeysWith: { _, last in last })
            for key in sized.keys {
                guard let (r, declaredBy) = relationships[key] else { continue }
                if declaredBy == name, ownVisits["\(name).\(r.name)"] == nil { ownVisits["\(name).\(r.name)"] = visits.count }
                visits.append(Visit(entity: name, declaredBy: declaredBy, relationship: r))
                if !r.isToMany, r.inverseIsOrdered(in: model) {
                    let orderKey = "_Z_FOK_" + column(declaredBy, r.name).dropFirst()
                    for e in model.entityTree(name) { tables[e.name]?.insert(orderKey) }
                } else if r.isToMany, r.inverseName == nil, let number = ids[declaredBy] {
                    let hidden = "Z\(number)" + r.name.uppercased()
                    tables[r.destinationEntityName]?.insert("_" + hidden)
                    if r.isOrdered { tables[r.destinationEntityName]?.insert("_Z_FOK_" + hidden.dropFirst()) }
                    tables[r.destinationEntityName]?.insert(hidden)
                }
            }
        }
    }

    /// The first visit of a relationship on the entity that declares it: where its order key
    /// is added to its table.
    func position(of relationship: String, declaredBy entity: String) -> Int {
        ownVisits["\(entity).\(relationship)"] ?? Int.max
    }

    /// The many-to-many relationships that name their join tables, by their declaring entity
    /// and name, each with the position of the visit that paired it: of each pair, the one
    /// visited first.
    func joinTableNamers(_ model: ManagedObjectModel) -> [String: Int] {
        var namers: [String: Int] = [:]
        var paired: Set<String> = []
        for (index, visit) in visits.enumerated() where visit.relationship.isToMany {
            let r = visit.relationship
            guard let inverseName = r.inverseName,
                  let inverse = model.property(inverseName, of: r.destinationEntityName),
                  case .relationship(let other) = inverse.property, other.isToMany else { continue }
            let mine = "\(visit.declaredBy).\(r.name)", theirs = "\(inverse.declaredBy).\(other.name)"
            guard paired.insert(mine).inserted else { continue }
            paired.insert(theirs)
            namers[mine] = index
        }
        return namers
    }
}

extension RelationshipDescription {
    /// Whether this to-one's inverse is an ordered to-many, so that it has an order key.
    func inverseIsOrdered(in model: ManagedObjectModel) -> Bool {
        guard !isToMany, let name = inverseName,
              case .relationship(let inverse)? = model.property(name, of: destinationEntityName)?.property else { return false }
        return inverse.isToMany && inverse.isOrdered
    }
}
