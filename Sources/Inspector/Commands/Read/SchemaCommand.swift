import ArgumentParser
import ManagedStore

public struct SchemaCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, firstArgumentIsEntity: true, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show an entity's properties (all entities without ENTITY): types, optionality, relationships and their SQL storage.",
        discussion: "Inherited properties are included and say which entity declares them.")

    @Argument(help: "The entity to describe.", completion: EntityCompletion.kind)
    public var entity: String?

    @OptionGroup public var output: FormatOption

    public init() {}

    static let columns = ["property", "kind", "type", "optional", "storage", "details", "declaredBy"]

    public func run(in session: Session) throws {
        let store = session.store
        let entities = try entity.map { [try store.entity($0)] } ?? store.mapping.entities
        let flat: () -> [ReportPart] = {
            [.rows(["entity"] + SchemaCommand.columns, entities.flatMap { e in SchemaCommand.rows(e).map { [.string(e.name)] + $0 } })]
        }
        let single = entity != nil
        session.results(output).report(Report(
            value: {
                let items = entities.map { SchemaCommand.json($0, declared: store.model.entity(named: $0.name)) }
                return single ? items[0] : .array(items)
            },
            people: { entities.enumerated().flatMap { i, e in (i > 0 ? [.gap] : []) + SchemaCommand.people(e, declared: store.model.entity(named: e.name)) } },
            csv: flat, lines: flat))
    }

    /// One entity as a table shows it: a heading, its properties, its constraints and indexes.
    static func people(_ e: EntityMapping, declared: EntityDescription?) -> [ReportPart] {
        var heading = "\(e.name)  table \(e.table)"
        if let id = e.entityID { heading += ", Z_ENT \(id)" }
        if let parent = e.superentityName { heading += ", parent \(parent)" }
        if e.isAbstract { heading += ", abstract" }
        var parts: [ReportPart] = [.line(heading), .rows(SchemaCommand.columns, SchemaCommand.rows(e))]
        // SwiftData's #Unique and #Index, Core Data's constraints and fetch indexes.
        if let declared {
            for constraint in declared.uniquenessConstraints { parts.append(.line("unique: " + constraint.joined(separator: ", "))) }
            for index in declared.fetchIndexes {
                parts.append(.line("index \(index.name): " + index.elements.map { $0.propertyName + ($0.isAscending ? "" : " desc") }
                    .joined(separator: ", ")))
            }
        }
        return parts
    }

    static func rows(_ e: EntityMapping) -> [[OutputValue]] {
        var rows: [[OutputValue]] = []
        for a in e.attributes {
            var details: [String] = []
            if a.attribute.isTransient { details.append("transient") }
            if a.attribute.isDerived { details.append("derived") }
            if let t = a.attribute.valueTransformerName { details.append("transformer \(t)") }
            if let c = a.attribute.valueClassName, a.attribute.type == .transformable { details.append("class \(c)") }
            if a.attribute.allowsExternalBinaryDataStorage { details.append("external storage") }
            if a.attribute.preservesValueInHistoryOnDeletion { details.append("kept in history on deletion") }
            if a.attribute.holdsJSON { details.append("JSON") }
            if let d = a.attribute.defaultValue { details.append("default \(d)") }
            rows.append([.string(a.attribute.name), .string("attribute"), .string(a.attribute.type.modelName),
                         .bool(a.attribute.isOptional),
                         a.column.map { .string($0) } ?? .string(a.attribute.isTransient ? "-" : "(no column)"),
                         .string(details.joined(separator: ", ")), .string(a.declaredBy)])
        }
        for r in e.relationships {
            let rel = r.relationship
            var details: [String] = []
            details.append(rel.inverseName.map { "inverse \($0)" } ?? "no inverse")
            details.append(rel.deleteRule.name)
            if rel.isOrdered { details.append("ordered") }
            if rel.isToMany && (rel.minCount > 0 || rel.maxCount > 0) { details.append("count \(rel.minCount)...\(rel.maxCount > 0 ? String(rel.maxCount) : "*")") }
            if rel.isTransient { details.append("transient") }
            rows.append([.string(rel.name), .string("relationship"),
                         .string((rel.isToMany ? "to-many " : "to-one ") + rel.destinationEntityName),
                         .bool(rel.isOptional), .string(r.storage.summary),
                         .string(details.joined(separator: ", ")), .string(r.declaredBy)])
        }
        for f in e.fetchedProperties {
            rows.append([.string(f.name), .string("fetched"), .string(f.fetchEntityName ?? ""), .bool(true),
                         .string("-"), .string("transient"), .string(e.name)])
        }
        return rows
    }

    static func json(_ e: EntityMapping, declared: EntityDescription?) -> OutputValue {
        let optional = { (s: String?) in s.map { OutputValue.string($0) } ?? .null }
        return .object([
            ("name", .string(e.name)),
            ("parent", optional(e.superentityName)),
            ("abstract", .bool(e.isAbstract)),
            ("table", .string(e.table)),
            ("entityID", e.entityID.map { .integer(Int64($0)) } ?? .null),
            ("attributes", .array(e.attributes.map { a in
                .object([
                    ("name", .string(a.attribute.name)),
                    ("type", .string(a.attribute.type.modelName)),
                    ("optional", .bool(a.attribute.isOptional)),
                    ("transient", .bool(a.attribute.isTransient)),
                    ("derived", .bool(a.attribute.isDerived)),
                    ("column", optional(a.column)),
                    ("declaredBy", .string(a.declaredBy)),
                    ("valueClass", optional(a.attribute.valueClassName)),
                    ("transformer", optional(a.attribute.valueTransformerName)),
                    ("externalStorage", .bool(a.attribute.allowsExternalBinaryDataStorage)),
                    ("default", optional(a.attribute.defaultValue)),
                ])
            })),
            ("relationships", .array(e.relationships.map { r in
                let rel = r.relationship
                return .object([
                    ("name", .string(rel.name)),
                    ("destination", .string(rel.destinationEntityName)),
                    ("inverse", optional(rel.inverseName)),
                    ("toMany", .bool(rel.isToMany)),
                    ("ordered", .bool(rel.isOrdered)),
                    ("optional", .bool(rel.isOptional)),
                    ("transient", .bool(rel.isTransient)),
                    ("minCount", .integer(Int64(rel.minCount))),
                    ("maxCount", .integer(Int64(rel.maxCount))),
                    ("deleteRule", .string(rel.deleteRule.name)),
                    ("declaredBy", .string(r.declaredBy)),
                    ("storage", storageJSON(r.storage)),
                ])
            })),
            ("fetchedProperties", .array(e.fetchedProperties.map { f in
                .object([("name", .string(f.name)), ("entity", optional(f.fetchEntityName))])
            })),
            ("uniquenessConstraints", .array((declared?.uniquenessConstraints ?? []).map { .array($0.map(OutputValue.string)) })),
            ("indexes", .array((declared?.fetchIndexes ?? []).map { index in
                .object([("name", .string(index.name)), ("elements", .array(index.elements.map { .string($0.propertyName) }))])
            })),
        ])
    }

    static func storageJSON(_ storage: RelationshipStorage) -> OutputValue {
        let optional = { (s: String?) in s.map { OutputValue.string($0) } ?? .null }
        switch storage {
        case .foreignKey(let column, let entityColumn):
            return .object([("kind", .string("foreignKey")), ("column", .string(column)), ("entityColumn", optional(entityColumn))])
        case .inverseForeignKey(let table, let column, let order):
            return .object([("kind", .string("inverseForeignKey")), ("table", .string(table)), ("column", .string(column)), ("orderColumn", optional(order))])
        case .hiddenForeignKey(let table, let column, let order):
            return .object([("kind", .string("hiddenForeignKey")), ("table", .string(table)), ("column", .string(column)), ("orderColumn", optional(order))])
        case .joinTable(let table, let source, let destination, let order):
            return .object([("kind", .string("joinTable")), ("table", .string(table)), ("sourceColumn", .string(source)),
                            ("destinationColumn", .string(destination)), ("orderColumn", optional(order))])
        case .none(let reason):
            return .object([("kind", .string("none")), ("reason", .string(reason))])
        }
    }
}

extension SchemaCommand {
    /// One entity as schema answers it.
    static let entityShape = AnswerShape.object([("name", .string), ("parent", .nullable(.string)), ("attributes", .array(.anyObject)),
                                                 ("relationships", .array(.anyObject))], required: ["name", "attributes", "relationships"])

    static let tool = ToolDeclaration(
        title: "Entity schema", description: "An entity's attributes, relationships and columns (all entities without one).",
        arguments: [.entity(required: false)],
        answer: .oneOf([SchemaCommand.entityShape, .rows(SchemaCommand.entityShape)])
    ) { a in
        var command = try SchemaCommand.parse([])
        command.entity = a.text("entity")
        return command
    }
}
