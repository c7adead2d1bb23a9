/// Core Data's naming rules for what it creates, shared by the reader (which verifies the
/// predictions against the schema) and the store creator (which writes them), so the two
/// cannot drift apart.
public enum ColumnNaming {
    /// Entity ids as Core Data numbers them: depth-first pre-order over the entity tree,
    /// siblings (and roots) sorted by name.
    public static func entityIDs(_ model: ManagedObjectModel) -> [String: Int] {
        var ids: [String: Int] = [:]
        func visit(_ entity: EntityDescription) {
            ids[entity.name] = ids.count + 1
            for child in model.subentities(of: entity.name).sorted(by: { numberingOrder($0.name, $1.name) }) { visit(child) }
        }
        for root in model.entities.filter({ $0.superentityName == nil }).sorted(by: { numberingOrder($0.name, $1.name) }) { visit(root) }
        return ids
    }

    /// The order Core Data numbers entities in: by name, case aside (both Photos stores:
    /// ComputedAssetAttributes before ComputeSyncAttributes, where `d` > `S` in code order),
    /// then in code order for names that differ only in case.
    static func numberingOrder(_ a: String, _ b: String) -> Bool {
        let (la, lb) = (a.lowercased(), b.lowercased())
        return la != lb ? la < lb : a < b
    }

    public static func tableName(root: String) -> String { "Z" + root.uppercased() }

    static func key(_ entity: String, _ property: String) -> String { entity + "\u{1F}" + property }

    /// Columns for every property stored in a row of `root`'s table, keyed by
    /// (declaring entity, property): `Z` + the uppercased name, and when a later entity
    /// (in `Z_ENT` order) declares the same name, `1`, `2`, … appended.
    ///
    /// A composite's elements are named after the element alone (sql-entity.md §4: element
    /// `id` of `author` is `ZID1` in an entity with an `id` of its own, `ice.ice` is `ZICE`),
    /// after the entity's other columns, so a collision suffixes the element. Composites in
    /// name order, elements in the composite's order.
    public static func rowColumns(root: String, model: ManagedObjectModel, ids: [String: Int]) -> [String: String] {
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        var assigned: [String: String] = [:]
        let tree = model.entityTree(root).sorted { (ids[$0.name] ?? Int.max, $0.name) < (ids[$1.name] ?? Int.max, $1.name) }
        for entity in tree {
            let stored = entity.properties.filter(\.isStoredInRow).sorted(by: { $0.name < $1.name })
            let plain = stored.filter { if case .attribute(let a) = $0 { return a.type != .composite } else { return true } }
            let elements = stored.filter { if case .attribute(let a) = $0 { return a.type == .composite } else { return false } }
                .flatMap(\.flattened).filter(\.isStoredInRow)
            for property in plain + elements {
                let base = columnBase(property.name)
                var candidate = base
                var n = 0
                while used.contains(candidate) { n += 1; candidate = base + String(n) }
                used.insert(candidate)
                assigned[key(entity.name, property.name)] = candidate
            }
        }
        return assigned
    }

    /// `Z` + the uppercased name; a composite's leaf `address.city` becomes `ZCITY` (the
    /// element's own name: nested composites flatten to their leaf's name).
    static func columnBase(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "Z" + name.uppercased() }
        return "Z" + name[name.index(after: dot)...].uppercased()
    }

    /// Names earlier versions of cdinspect's store writer gave a composite leaf's column
    /// (`ZADDRESS_CITY`, `ZADDRESSCITY`), which the reader still accepts when the predicted
    /// column is missing; empty for a property that is no leaf.
    static func legacyLeafColumns(property: String) -> [String] {
        guard property.contains(".") else { return [] }
        return ["Z" + property.uppercased().replacingDots(with: "_"), "Z" + property.uppercased().replacingDots(with: "")]
    }

    public static func column(in assigned: [String: String], declaredBy entity: String, property: String) -> String? {
        assigned[key(entity, property)]
    }
}

extension String {
    /// Every `.` replaced, with the standard library alone. Every property of the model is
    /// named this way at each open, and Foundation's `replacingOccurrences(of:with:)` goes
    /// through `NSString` on Linux, which made naming a dozen properties cost more than
    /// the rest of opening a small store.
    func replacingDots(with replacement: String) -> String {
        guard utf8.contains(UInt8(ascii: ".")) else { return self }
        var replaced = ""
        for scalar in unicodeScalars {
            if scalar == "." { replaced += replacement } else { replaced.unicodeScalars.append(scalar) }
        }
        return replaced
    }
}
