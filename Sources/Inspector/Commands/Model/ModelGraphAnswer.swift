import ManagedStore

/// `model graph --format json`: the model as the web view's model page and the MCP model
/// view draw it, one value for both: each entity as a card (its parent, its attributes, its
/// relationships with cardinality and inverse, its version hash against the store's), and the
/// diagram as Mermaid and DOT text. The SVG is not in it: `dot` draws it from the DOT where it
/// is installed.
enum ModelGraphAnswer {
    static let shape = AnswerShape.record([
        ("entities", .array(.object([("name", .string), ("parent", .nullable(.string)), ("abstract", .boolean),
                                     ("attributes", .array(.anyObject)), ("relationships", .array(.anyObject))],
                                    required: ["name", "attributes", "relationships"]))),
        ("mermaid", .string), ("dot", .string),
    ])

    static func value(_ diagram: ModelDiagram, hashes: [EntityHashComparison]) -> OutputValue {
        let entities = diagram.entities.map { entity -> OutputValue in
            var attributes: [OutputValue] = []
            var relationships: [OutputValue] = []
            for property in entity.properties {
                switch property {
                case .attribute(let a):
                    attributes.append(.object([("name", .string(a.name)), ("type", .string(a.type.modelName)),
                                               ("optional", .bool(a.isOptional)), ("transient", .bool(a.isTransient))]))
                case .relationship(let r):
                    relationships.append(.object([("name", .string(r.name)), ("destination", .string(r.destinationEntityName)),
                                                  ("toMany", .bool(r.isToMany)), ("inverse", r.inverseName.map(OutputValue.string) ?? .null),
                                                  ("optional", .bool(r.isOptional))]))
                case .fetched(let f):
                    attributes.append(.object([("name", .string(f.name)), ("type", .string("fetched property")),
                                               ("optional", .bool(true)), ("transient", .bool(true))]))
                }
            }
            var card: [(String, OutputValue)] = [
                ("name", .string(entity.name)), ("parent", entity.superentityName.map(OutputValue.string) ?? .null),
                ("abstract", .bool(entity.isAbstract)), ("attributes", .array(attributes)), ("relationships", .array(relationships)),
            ]
            if let hash = hashes.first(where: { $0.entity == entity.name }) {
                card.append(("versionHash", .object([("computed", hash.computed.map { .string(ModelCommand.hex($0)) } ?? .null),
                                                     ("stored", hash.stored.map { .string(ModelCommand.hex($0)) } ?? .null),
                                                     ("match", .bool(hash.matches))])))
            }
            return .object(card)
        }
        return .object([("entities", .array(entities)), ("mermaid", .string(diagram.mermaid)), ("dot", .string(diagram.dot()))])
    }
}
