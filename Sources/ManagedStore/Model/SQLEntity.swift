/// Core Data's SQL-level entity beneath an `NSEntityDescription`: its table's columns and
/// relationships in the six groups Core Data numbers them in (sql-entity.md §1). History's
/// `ZCOLUMNS` bitmap gives one bit to each member, in this order (`UpdatedPropertyBits`).
///
/// 1. foreign keys of to-ones (inherited first, each level by name), then the hidden
///    foreign keys Core Data adds for inverse-less to-manys that point at the entity;
/// 2. entity keys (`Z<n>FOO`) of to-ones whose destination has subentities;
/// 3. order keys (`Z_FOK_FOO`) of to-ones whose inverse is ordered;
/// 4. attribute columns, inherited first, each level by name, a composite's elements in
///    the composite's order;
/// 5. to-manys; 6. many-to-manys, each once: both in the enumeration order of the
///    dictionary Core Data keeps them in (`CFDictionaryOrder`), not by name.
///
/// Measured on Core Data's own rows (`UpdatedPropertyEvidenceTests`): the bitmap length fits
/// every update row of every fixture with history.
public struct SQLEntity: Sendable {
    public enum Member: Sendable, Equatable {
        case foreignKey(String)
        /// A hidden foreign key: the column of another entity's inverse-less to-many. It
        /// names no property of this entity.
        case hiddenForeignKey(column: String)
        case entityKey(String)
        case orderKey(String)
        /// An attribute column: `property` is the attribute (a composite's name for its
        /// elements), `name` the attribute or `composite.element`.
        case attribute(name: String, property: String)
        case toMany(String)
        case manyToMany(String)

        /// The property a bit of this member names; nil for a hidden foreign key.
        public var propertyName: String? {
            switch self {
            case .foreignKey(let n), .entityKey(let n), .orderKey(let n), .toMany(let n), .manyToMany(let n): return n
            case .attribute(_, let property): return property
            case .hiddenForeignKey: return nil
            }
        }
    }

    public let entity: String
    public let members: [Member]

    /// Where the to-many bits are (groups 5 and 6).
    public var toManyRange: Range<Int> {
        let first = members.firstIndex { if case .toMany = $0 { return true } else if case .manyToMany = $0 { return true } else { return false } }
        return (first ?? members.count)..<members.count
    }

    /// The to-many relationships in bit order.
    public var toManyNames: [String] { members[toManyRange].compactMap(\.propertyName) }

    /// `toManyOrder`: the to-many relationships in the order a store's history shows
    /// (`LearnedToManyOrder`), in place of the computed one; ignored unless it names each
    /// of them once.
    public init(entity name: String, model: ManagedObjectModel, toManyOrder: [String]? = nil) {
        entity = name
        let ids = ColumnNaming.entityIDs(model)
        let chain = model.ancestors(of: name).reversed().map(\.name) + [name]
        let hasSubentities = { (entity: String) in model.entityTree(entity).count > 1 }
        let inverse = { (r: RelationshipDescription) -> RelationshipDescription? in
            guard case .relationship(let inverse)? = r.inverseName.flatMap({ model.property($0, of: r.destinationEntityName) })?.property
            else { return nil }
            return inverse
        }
        var toOnes: [RelationshipDescription] = []
        var attributes: [AttributeDescription] = []
        var toManys: [RelationshipDescription] = []
        var manyToManys: [RelationshipDescription] = []
        for level in chain {
            guard let declared = model.entity(named: level)?.properties else { continue }
            for property in declared.sorted(by: { $0.name < $1.name }) {
                switch property {
                case .attribute(let a) where !a.isTransient:
                    attributes.append(a)
                case .relationship(let r) where !r.isTransient:
                    if !r.isToMany {
                        toOnes.append(r)
                    } else if inverse(r)?.isToMany == true {
                        manyToManys.append(r)
                    } else {
                        toManys.append(r)
                    }
                default:
                    continue
                }
            }
        }
        // Inverse-less to-manys of any entity whose destination is this entity or above it.
        var hidden: [(column: String, sourceHasSubentities: Bool, ordered: Bool)] = []
        for source in model.entities.sorted(by: { (ids[$0.name] ?? Int.max, $0.name) < (ids[$1.name] ?? Int.max, $1.name) }) {
            for case .relationship(let r) in source.properties.sorted(by: { $0.name < $1.name })
            where r.isToMany && !r.isTransient && r.inverseName == nil && chain.contains(r.destinationEntityName) {
                hidden.append(("Z\(ids[source.name].map(String.init) ?? "")" + r.name.uppercased(),
                               hasSubentities(source.name), r.isOrdered))
            }
        }
        let inverseIsOrdered = { (r: RelationshipDescription) in inverse(r)?.isOrdered == true }
        var members: [Member] = toOnes.map { .foreignKey($0.name) }
        members += hidden.map { .hiddenForeignKey(column: $0.column) }
        members += toOnes.filter { hasSubentities($0.destinationEntityName) }.map { .entityKey($0.name) }
        members += hidden.filter(\.sourceHasSubentities).map { .hiddenForeignKey(column: $0.column) }
        members += toOnes.filter(inverseIsOrdered).map { .orderKey($0.name) }
        members += hidden.filter(\.ordered).map { .hiddenForeignKey(column: $0.column) }
        let leaves = attributes.flatMap { a in a.leaves.filter { !$0.isTransient }.map { ($0.name, a.name) } }
        members += leaves.map { .attribute(name: $0.0, property: $0.1) }
        // The dictionary's keys, in the order Core Data adds them (sql-entity.md §1).
        if toManys.count + manyToManys.count > 1 {
            let columns = ColumnNaming.rowColumns(root: model.rootEntity(of: name)?.name ?? name, model: model, ids: ids)
            let column = { (property: String) -> String in
                for level in chain.reversed() {
                    if let c = ColumnNaming.column(in: columns, declaredBy: level, property: property) { return c }
                }
                return ColumnNaming.columnBase(property)
            }
            var keys = ["Z_PK", "Z_ENT", "Z_OPT"] + toOnes.map { column($0.name) } + hidden.map(\.column)
            keys += toOnes.filter { hasSubentities($0.destinationEntityName) }.map { r in
                "Z\(ids[r.destinationEntityName].map(String.init) ?? "")_" + column(r.name).dropFirst()
            }
            keys += toOnes.filter(inverseIsOrdered).map { "Z_FOK_" + column($0.name).dropFirst() }
            keys += toOnes.map(\.name) + leaves.map { column($0.0) } + (toManys + manyToManys).map(\.name)
            let order = CFDictionaryOrder.enumerationOrder(of: keys)
            let position = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            toManys.sort { (position[$0.name] ?? Int.max) < (position[$1.name] ?? Int.max) }
            manyToManys.sort { (position[$0.name] ?? Int.max) < (position[$1.name] ?? Int.max) }
        }
        var region: [Member] = toManys.map { .toMany($0.name) } + manyToManys.map { .manyToMany($0.name) }
        if let toManyOrder, toManyOrder.count == region.count, Set(toManyOrder) == Set(region.compactMap(\.propertyName)) {
            region = toManyOrder.compactMap { name in region.first { $0.propertyName == name } }
        }
        members += region
        self.members = members
    }
}

/// The order an `NSMutableDictionary` of string keys enumerates them in: CFString's hash
/// (open-source CoreFoundation, `CFString.c`), a prime-sized table chosen for the number of
/// keys, linear probing, enumeration in bucket order (sql-entity.md §1). Core Data lists an
/// SQL entity's to-many relationships this way.
enum CFDictionaryOrder {
    /// CFBasicHash's bucket counts and the most keys each holds.
    static let sizes = [3, 7, 13, 23, 41, 71, 127, 191, 251, 383, 631, 1087, 1723, 2803, 4523, 7351, 11_959, 19_447]
    static let capacities = [3, 6, 11, 19, 32, 52, 85, 118, 155, 237, 390, 672, 1065, 1732, 2795, 4543, 7391, 12_019]

    static func enumerationOrder(of keys: [String]) -> [String] {
        guard let index = capacities.firstIndex(where: { $0 >= keys.count }) else { return keys }
        var table = [String?](repeating: nil, count: sizes[index])
        for key in keys {
            var slot = Int(hash(key) % UInt64(table.count))
            while table[slot] != nil { slot = (slot + 1) % table.count }
            table[slot] = key
        }
        return table.compactMap { $0 }
    }

    /// `CFHash` of a string: its UTF-16 units, the first, middle and last 32 of a long one;
    /// the result shifted by the length masked with `shiftMask` (31 in Core Foundation; Core
    /// Data's own copy of the hash, `GrowingPropertyDictionary`'s, shifts by the whole length).
    static func hash(_ string: String, shiftMask: Int = 31) -> UInt64 {
        let units = Array(string.utf16)
        let n = units.count
        let parts = n <= 96 ? units : Array(units[..<32] + units[(n / 2 - 16)..<(n / 2 + 16)] + units[(n - 32)...])
        var result = UInt64(n)
        var i = 0
        while i + 4 <= parts.count {
            result = result &* 67_503_105 &+ UInt64(parts[i]) &* 16_974_593 &+ UInt64(parts[i + 1]) &* 66_049
                &+ UInt64(parts[i + 2]) &* 257 &+ UInt64(parts[i + 3])
            i += 4
        }
        while i < parts.count {
            result = result &* 257 &+ UInt64(parts[i])
            i += 1
        }
        return result &+ (result << UInt64(n & shiftMask))
    }
}
