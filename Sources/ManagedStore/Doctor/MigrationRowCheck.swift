import GRDB

/// The rows a new model version would reject when the app migrates the store to it: a
/// migration copies each row into the new schema and validates it there, so a model that
/// `model diff` calls lightweight can still crash the app at launch because of the data.
/// Judged by Core Data's rules for the destination: a required attribute must get a value
/// (the row's, or the attribute's default), and rows must not repeat under a uniqueness
/// constraint.
public struct MigrationRowCheck {
    public let store: PersistentStore
    public let newModel: ManagedObjectModel

    public init(store: PersistentStore, newModel: ManagedObjectModel) {
        self.store = store
        self.newModel = newModel
    }

    /// The old entity a new one migrates from: the same name, or the one its renaming
    /// identifier names.
    private func source(of entity: EntityDescription) -> EntityMapping? {
        store.mapping.entity(named: entity.name) ?? entity.renamingIdentifier.flatMap { store.mapping.entity(named: $0) }
    }

    private func ids(_ entity: EntityMapping) -> String { entity.entityIDs.map(String.init).joined(separator: ", ") }

    public func findings(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        for entity in newModel.entities.sorted(by: { $0.name < $1.name }) {
            try Cancellation.check()
            guard let old = source(of: entity), store.schema.table(old.table) != nil, old.entityID != nil else { continue }
            let rows = "FROM \(SQL.identifier(old.table)) x WHERE x.Z_ENT IN (\(ids(old)))"
            let inherited = Set(newModel.ancestors(of: entity.name).flatMap { $0.properties.map(\.name) })
            for property in entity.properties where !inherited.contains(property.name) {
                guard case .attribute(let a) = property, !a.isTransient, !a.isOptional, a.defaultValue == nil, !a.isDerived, a.type != .composite else { continue }
                let previous = old.attribute(a.name) ?? a.renamingIdentifier.flatMap { old.attribute($0) }
                let tail: String
                let why: String
                if let previous, let column = previous.column {
                    guard previous.attribute.isOptional || previous.attribute.isTransient else { continue }
                    tail = rows + " AND x.\(SQL.identifier(column)) IS NULL"
                    why = "made required without a default while rows hold NULL"
                } else if previous == nil {
                    tail = rows
                    why = "new, required and without a default: no existing row has a value for it"
                } else {
                    continue
                }
                if let finding = try required(entity, a.name, old: old, tail: tail, db,
                                              detail: "\(why): migration fails with Cocoa error 134110 "
                                                  + "(\"missing attribute values on mandatory destination attribute\") and the app cannot open the store") {
                    found.append(finding)
                }
            }
            found += try requiredToOnes(entity, old: old, rows: rows, inherited: inherited, db)
            let oldConstraints = Set((store.model.entity(named: old.name)?.uniquenessConstraints ?? []).map { $0.sorted() })
            for constraint in entity.uniquenessConstraints where !oldConstraints.contains(constraint.sorted()) {
                guard let columns = old.columns(of: constraint) else { continue }
                let repeats = try ConstraintRepeats(old, columns: columns, db)
                let count = repeats.rows
                guard count > 0 else { continue }
                found.append(DoctorFinding(.error, "migration_unique", entity: entity.name, property: constraint.joined(separator: ","), count: count,
                                           examples: repeats.firstKeys.map { (old.name, $0) },
                                           detail: "the new uniqueness constraint (\(constraint.joined(separator: ", "))) of \(entity.name) is "
                                               + "broken by \(count) existing row(s) in \(repeats.groups) group(s) of repeated values "
                                               + "(\(repeats.values.joined(separator: ", "))\(repeats.groups > Int64(repeats.values.count) ? ", …" : "")): "
                                               + "migration fails with Cocoa error 134111 "
                                               + "(NSMigrationConstraintViolationError) and the app cannot open the store"))
            }
        }
        return found
    }

    /// A to-one the new model requires where rows have no object: new and required, or made
    /// required while rows hold none. Core Data's migration validates each object and fails
    /// with 134110 (wibosco's Post.color, required in version 3, for which the app ships a
    /// policy that makes a Color for every Post).
    private func requiredToOnes(_ entity: EntityDescription, old: EntityMapping, rows: String, inherited: Set<String>,
                                _ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        for property in entity.properties where !inherited.contains(property.name) {
            guard case .relationship(let r) = property, !r.isToMany, !r.isOptional, !r.isTransient else { continue }
            let previous = ModelDiff.match(r.name, r.renamingIdentifier, in: old.relationships.map(\.relationship.name)).flatMap { old.relationship($0) }
            let tail: String
            let why: String
            if let previous {
                guard previous.relationship.isOptional, case .foreignKey(let column, _) = previous.storage,
                      store.schema.table(old.table)?.hasColumn(column) == true else { continue }
                tail = rows + " AND x.\(SQL.identifier(column)) IS NULL"
                why = "made required while rows have no object for it"
            } else {
                tail = rows
                why = "a new required to-one: no existing row has an object for it"
            }
            if let finding = try required(entity, r.name, old: old, tail: tail, db,
                                          detail: "\(why): migration fails with Cocoa error 134110 "
                                              + "(the destination object fails validation: the relationship is required) and the app cannot open the store") {
                found.append(finding)
            }
        }
        return found
    }

    /// The `migration_required` finding of `property` over the old rows `tail` selects
    /// (`FROM … WHERE …`, alias `x`), nil when there are none; `detail` follows "E.p is ".
    private func required(_ entity: EntityDescription, _ property: String, old: EntityMapping, tail: String, _ db: Database,
                          detail: String) throws -> DoctorFinding? {
        let count = try Int64.fetchOne(db, sql: "SELECT count(*) " + tail) ?? 0
        guard count > 0 else { return nil }
        let keys = try Int64.fetchAll(db, sql: "SELECT x.Z_PK " + tail + " ORDER BY 1 LIMIT \(DoctorFinding.exampleLimit)")
        return DoctorFinding(.error, "migration_required", entity: entity.name, property: property, count: count,
                             examples: keys.map { (old.name, $0) }, detail: "\(entity.name).\(property) is " + detail)
    }
}
