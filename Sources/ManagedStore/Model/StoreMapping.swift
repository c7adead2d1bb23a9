/// Maps a model onto a store's schema: tables, columns with Core Data's collision suffixes,
/// and relationship storage. Every prediction is checked against `PRAGMA table_info`; what
/// cannot be found is reported as unmapped rather than guessed.
public struct StoreMapping: Sendable {
    public let model: ManagedObjectModel
    public let entities: [EntityMapping]
    /// Notes on predictions the schema did not confirm, for `info` and debugging.
    public let warnings: [String]
    /// Predicted columns the schema does not have, as `Entity.property: TABLE.COLUMN`.
    public let missingColumns: [String]
    /// Positions in `entities` by `Z_ENT`: rows name their entity by it, once per row.
    private let positionsByID: [Int: Int]

    public func entity(named name: String) -> EntityMapping? {
        entities.first { $0.name == name }
            ?? {
                let folded = entities.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }
                return folded.count == 1 ? folded[0] : nil
            }()
    }

    public func entity(withID id: Int) -> EntityMapping? {
        positionsByID[id].map { entities[$0] }
    }

    /// The root of the entity's inheritance chain: the entity whose table it shares and whose
    /// `Z_MAX` hands out its keys (the model's own walk, which a parent loop cannot trap).
    public func rootEntity(of entity: EntityMapping) -> EntityMapping {
        model.rootEntity(of: entity.name).flatMap { self.entity(named: $0.name) } ?? entity
    }

    public init(model: ManagedObjectModel, schema: SchemaSnapshot) {
        self.model = model
        var builder = Builder(model: model, schema: schema)
        entities = model.entities.map { builder.mapping(for: $0) }
        warnings = builder.warnings
        // An inherited property is looked up once per entity below its owner: said once.
        var seen: Set<String> = []
        missingColumns = builder.missingColumns.filter { seen.insert($0).inserted }
        positionsByID = Dictionary(entities.enumerated().compactMap { i, e in e.entityID.map { ($0, i) } },
                                   uniquingKeysWith: { first, _ in first })
    }

    private struct Builder {
        let model: ManagedObjectModel
        let schema: SchemaSnapshot
        let isCoreData: Bool
        var ids: [String: Int] = [:]
        var warnings: [String] = []
        var missingColumns: [String] = []
        /// (declaring entity, property) → column, per root table.
        var columns: [String: [String: String]] = [:]

        init(model: ManagedObjectModel, schema: SchemaSnapshot) {
            self.model = model
            self.schema = schema
            isCoreData = model.source != .plainSQLite
            for row in schema.primaryKeys { ids[row.name] = row.entityID }
            if isCoreData {
                matchRenamedEntities()
                assignColumns()
            }
        }

        /// A migration that renamed an entity can leave the old name in `Z_PRIMARYKEY` (the
        /// fixture SampleModel_V2 keeps `ExpensiveSportCar` for the model's `LuxuryCar`). An
        /// entity no row names takes, so that its rows are not lost, the row named by its
        /// renaming identifier, else the row the model's own numbering gives it; in both cases
        /// only a row whose name belongs to no entity of the model.
        mutating func matchRenamedEntities() {
            let modelNames = Set(model.entities.map { $0.name.lowercased() })
            var unclaimed = schema.primaryKeys.filter { !modelNames.contains($0.name.lowercased()) }
            guard !unclaimed.isEmpty else { return }
            for entity in model.entities where id(entity.name) == nil {
                guard let renamed = entity.renamingIdentifier?.lowercased(),
                      let row = unclaimed.firstIndex(where: { $0.name.lowercased() == renamed }) else { continue }
                ids[entity.name] = unclaimed.remove(at: row).entityID
            }
            let numbers = Set(unclaimed.map(\.entityID))
            for (name, number) in ColumnNaming.entityIDs(model) where id(name) == nil && numbers.contains(number) {
                ids[name] = number
            }
        }

        func id(_ entity: String) -> Int? { ids[entity] ?? ids.first { $0.key.caseInsensitiveCompare(entity) == .orderedSame }?.value }

        func table(for entity: String) -> String {
            guard isCoreData else { return model.entity(named: entity)?.name ?? entity }
            let root = ColumnNaming.tableName(root: model.rootEntity(of: entity)?.name ?? entity)
            return schema.table(root)?.name ?? root
        }

        /// Predicted row columns of every root table (see `ColumnNaming.rowColumns`).
        mutating func assignColumns() {
            let roots = model.entities.filter { $0.superentityName == nil || model.entity(named: $0.superentityName!) == nil }
            for root in roots {
                columns[table(for: root.name)] = ColumnNaming.rowColumns(root: root.name, model: model, ids: ids)
            }
        }

        mutating func column(_ entity: String, declaredBy: String, property: String) -> String? {
            let table = table(for: entity)
            guard isCoreData else { return schema.table(table)?.column(property)?.name }
            guard let predicted = columns[table].flatMap({ ColumnNaming.column(in: $0, declaredBy: declaredBy, property: property) }) else { return nil }
            if let found = schema.table(table)?.column(predicted) { return found.name }
            for other in ColumnNaming.legacyLeafColumns(property: property) {
                if let found = schema.table(table)?.column(other) { return found.name }
            }
            warnings.append("\(declaredBy).\(property): expected column \(table).\(predicted) is missing")
            missingColumns.append("\(declaredBy).\(property): \(table).\(predicted)")
            return nil
        }

        mutating func mapping(for entity: EntityDescription) -> EntityMapping {
            let table = table(for: entity.name)
            let tree = model.entityTree(entity.name)
            let root = model.rootEntity(of: entity.name)?.name ?? entity.name
            let rootTree = model.entityTree(root)
            let tableInfo = schema.table(table)
            var attributes: [AttributeMapping] = []
            var relationships: [RelationshipMapping] = []
            var fetched: [FetchedPropertyDescription] = []
            for (property, owner) in model.flattenedProperties(of: entity.name) {
                switch property {
                case .attribute(let a):
                    let column = a.isTransient ? nil : self.column(entity.name, declaredBy: owner, property: a.name)
                    attributes.append(AttributeMapping(attribute: a, declaredBy: owner, column: column))
                case .relationship(let r):
                    relationships.append(RelationshipMapping(relationship: r, declaredBy: owner,
                                                             storage: storage(of: r, in: entity.name, declaredBy: owner)))
                case .fetched(let f):
                    fetched.append(f)
                }
            }
            let plainPK = tableInfo?.columns.first { $0.primaryKeyIndex == 1 && $0.declaredType.uppercased() == "INTEGER" }?.name
            return EntityMapping(
                name: entity.name,
                entityID: isCoreData ? id(entity.name) : nil,
                superentityName: entity.superentityName,
                isAbstract: entity.isAbstract,
                table: table,
                entityIDs: isCoreData ? tree.compactMap { id($0.name) } : [],
                tableHasSubentities: isCoreData && rootTree.count > 1,
                primaryKeyColumn: isCoreData ? "Z_PK" : (plainPK ?? "rowid"),
                entityColumn: isCoreData && tableInfo?.hasColumn("Z_ENT") == true ? "Z_ENT" : nil,
                versionColumn: isCoreData && tableInfo?.hasColumn("Z_OPT") == true ? "Z_OPT" : nil,
                attributes: attributes,
                relationships: relationships,
                fetchedProperties: fetched)
        }

        /// Finds a column equal to `base`, or `base` plus a numeric collision suffix.
        func findColumn(in table: String, base: String) -> String? {
            guard let info = schema.table(table) else { return nil }
            if let exact = info.column(base) { return exact.name }
            return info.columns.first { column in
                let name = column.name.uppercased()
                return name.hasPrefix(base.uppercased()) && name.dropFirst(base.count).allSatisfy(\.isNumber) && name.count > base.count
            }?.name
        }

        /// Finds an entity column `Z<digits>_<rest>` whatever its entity number, for stores
        /// whose numbering no longer matches the prediction.
        func findEntityColumn(in table: String, naming rest: String) -> String? {
            schema.table(table)?.columns.first { column in
                let name = column.name
                guard name.hasPrefix("Z"), let underscore = name.firstIndex(of: "_") else { return false }
                let digits = name[name.index(after: name.startIndex)..<underscore]
                return !digits.isEmpty && digits.allSatisfy(\.isNumber) && name[name.index(after: underscore)...] == rest
            }?.name
        }

        mutating func storage(of r: RelationshipDescription, in entity: String, declaredBy owner: String) -> RelationshipStorage {
            if r.isTransient { return .none(reason: "transient") }
            guard model.entity(named: r.destinationEntityName) != nil else {
                return .none(reason: "destination entity \(r.destinationEntityName) is not in the model")
            }
            let destination = model.entity(named: r.destinationEntityName)!.name
            let destinationTable = table(for: destination)
            if !isCoreData {
                return .foreignKey(column: r.name, entityColumn: nil)
            }
            let inverse = r.inverseName.flatMap { model.property($0, of: destination) }
            if !r.isToMany {
                guard let column = column(entity, declaredBy: owner, property: r.name) else {
                    return .none(reason: "no key column for \(r.name) in \(table(for: entity))")
                }
                var entityColumn: String?
                if model.entityTree(destination).count > 1 {
                    let rest = String(column.dropFirst())
                    let predicted = id(destination).map { "Z\($0)_" + rest }
                    entityColumn = predicted.flatMap { schema.table(table(for: entity))?.column($0)?.name }
                        ?? findEntityColumn(in: table(for: entity), naming: rest)
                }
                return .foreignKey(column: column, entityColumn: entityColumn)
            }
            if case .relationship(let inv)? = inverse?.property, !inv.isToMany {
                guard let column = self.column(destination, declaredBy: inverse!.declaredBy, property: inv.name) else {
                    return .none(reason: "no key column for the inverse \(destination).\(inv.name)")
                }
                let order = r.isOrdered ? findColumn(in: destinationTable, base: "Z_FOK_" + column.dropFirst()) : nil
                return .inverseForeignKey(table: destinationTable, column: column, orderColumn: order)
            }
            if case .relationship(let inv)? = inverse?.property, inv.isToMany {
                return joinTable(r, owner: owner, destination: destination, inverse: inv, inverseOwner: inverse!.declaredBy)
            }
            // To-many without inverse: hidden key `Z<id of declaring entity><R>` in the destination table.
            let base = "Z\(id(owner).map(String.init) ?? "")" + r.name.uppercased()
            guard let column = findColumn(in: destinationTable, base: base) else {
                return .none(reason: "no hidden key \(base) in \(destinationTable)")
            }
            let order = r.isOrdered ? findColumn(in: destinationTable, base: "Z_FOK_" + column.dropFirst()) : nil
            return .hiddenForeignKey(table: destinationTable, column: column, orderColumn: order)
        }

        /// Many-to-many: the table is named after one side (`Z_<id><R>`, which side is not
        /// predictable), so try both and match the columns by their `Z_<id><R>` pattern.
        mutating func joinTable(_ r: RelationshipDescription, owner: String, destination: String,
                                inverse: RelationshipDescription, inverseOwner: String) -> RelationshipStorage {
            let rName = r.name.uppercased(), invName = inverse.name.uppercased()
            var candidates: [String] = []
            for (entity, name) in [(owner, rName), (inverseOwner, invName)] {
                guard let id = id(entity) else { continue }
                candidates.append("Z_\(id)\(name)")
                candidates += (1...9).map { "Z_\(id)\(name)\($0)" }
            }
            func matches(_ column: String, _ name: String) -> Bool {
                let c = column.uppercased()
                guard c.hasPrefix("Z_"), !c.hasPrefix("Z_FOK_") else { return false }
                let rest = c.dropFirst(2).drop { $0.isNumber }
                guard rest.count < c.count - 2, rest.hasPrefix(name) else { return false }
                return rest.dropFirst(name.count).allSatisfy(\.isNumber)
            }
            for candidate in candidates {
                guard let info = schema.table(candidate) else { continue }
                let keys = info.columns.map(\.name).filter { !$0.uppercased().hasPrefix("Z_FOK_") }
                guard keys.count == 2 else { continue }
                let destinationColumn: String?, sourceColumn: String?
                if rName == invName, keys.contains("REFLEXIVE") {
                    destinationColumn = keys.first { $0 == "REFLEXIVE" }
                    sourceColumn = keys.first { $0 != "REFLEXIVE" }
                } else {
                    destinationColumn = keys.first { matches($0, rName) }
                    sourceColumn = keys.first { $0 != destinationColumn && matches($0, invName) }
                }
                guard let destinationColumn, let sourceColumn else { continue }
                let order = r.isOrdered
                    ? info.columns.first { $0.name.uppercased() == "Z_FOK_" + destinationColumn.dropFirst(2).uppercased() }?.name
                    : nil
                return .joinTable(table: info.name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, orderColumn: order)
            }
            let tried = candidates.filter { !($0.last?.isNumber ?? false) }.joined(separator: ", ")
            warnings.append("\(owner).\(r.name): no join table found (tried \(tried))")
            return .none(reason: "no join table found")
        }
    }
}
