/// A SwiftData `@Model` class for an entity: attributes with their Swift types and
/// optionality, `@Attribute(.unique)` / `#Unique`, `#Index`, `.externalStorage`,
/// `.ephemeral` (transient), `originalName:` (renaming identifier), composites as `Codable`
/// structs (an enum where the composite is one element of its own name, as SwiftData stores
/// an enum), transformables with their transformer, and `@Relationship` with its delete
/// rule, counts and inverse. The inverse is named on one side of each pair only, as the
/// macro requires. With the store's rows (`sample`), an enum lists the cases its rows hold and
/// a JSON element gets the Swift type its values show: the sources then typecheck once
/// SwiftData's annotations are set aside, Apple-only types apart.
struct SwiftDataModelWriter {
    let model: ManagedObjectModel
    var sample: ModelRowSample? = nil

    func source(for entity: EntityDescription) -> String {
        let type = SwiftModelSource.className(of: entity)
        var lines = ["import Foundation", "import SwiftData", ""]
        var nested: [String] = []
        let isLeaf = model.subentities(of: entity.name).isEmpty
        let parent = entity.superentityName.map { ": " + SwiftModelSource.className($0, in: model) } ?? ""
        if entity.isAbstract { lines.append("/// Abstract in the model: the app makes objects of its subclasses only.") }
        lines.append("@Model")
        lines.append("\(isLeaf ? "final " : "")class \(type)\(parent) {")
        var body: [String] = []
        let multiKey = entity.uniquenessConstraints.filter { $0.count > 1 || ($0.count == 1 && !isAttribute($0[0], of: entity)) }
        if !multiKey.isEmpty {
            let tuples = multiKey.map { "[" + $0.map { "\\." + SwiftNames.escaped($0) }.joined(separator: ", ") + "]" }
            body.append("#Unique<\(type)>(\(tuples.joined(separator: ", ")))")
        }
        if !entity.fetchIndexes.isEmpty {
            let tuples = entity.fetchIndexes.map { "[" + $0.elements.map { "\\." + SwiftNames.escaped($0.propertyName) }.joined(separator: ", ") + "]" }
            body.append("#Index<\(type)>(\(tuples.joined(separator: ", ")))")
        }
        if !body.isEmpty { body.append("") }
        let uniqueAlone = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.map { $0[0] })
        var initParameters: [(name: String, type: String)] = []
        for property in entity.properties {
            switch property {
            case .attribute(let a):
                let (declaration, parameterType, extra) = attribute(a, unique: uniqueAlone.contains(a.name), of: entity.name)
                body.append(declaration)
                nested += extra
                if let parameterType { initParameters.append((a.name, parameterType)) }
            case .relationship(let r):
                body.append(relationship(r, of: entity))
            case .fetched(let f):
                body.append("// fetched property \(f.name): SwiftData has none")
            }
        }
        initParameters = requiredParameters(of: entity)
        body.append("")
        let inherited = entity.superentityName.map { initializerParameters(of: model.entity(named: $0)) } ?? []
        body += initializer(initParameters, inherited: inherited, subclass: entity.superentityName != nil)
        lines += body.map { $0.isEmpty ? "" : "    " + $0 }
        lines.append("}")
        if !nested.isEmpty { lines += [""] + nested }
        return lines.joined(separator: "\n") + "\n"
    }

    func isAttribute(_ name: String, of entity: EntityDescription) -> Bool {
        entity.properties.contains { if case .attribute(let a) = $0 { return a.name == name } else { return false } }
    }

    /// The stored properties an entity's class must be given, having no default and not being
    /// optional: its attributes of that kind and its required to-one relationships.
    func requiredParameters(of entity: EntityDescription?) -> [(name: String, type: String)] {
        guard let entity else { return [] }
        var parameters: [(name: String, type: String)] = []
        for property in entity.properties {
            switch property {
            case .attribute(let a):
                guard !a.isOptional, SwiftModelSource.defaultLiteral(a) == nil else { continue }
                parameters.append((a.name, a.type == .composite ? swiftType(a) : attributeType(a, of: entity.name)))
            case .relationship(let r) where !r.isToMany && !r.isOptional:
                parameters.append((r.name, SwiftModelSource.className(r.destinationEntityName, in: model)))
            default:
                continue
            }
        }
        return parameters
    }

    /// What an entity's class initializer takes: its own required properties, then its
    /// ancestors', nearest first. (A loop of parents is followed once.)
    func initializerParameters(of entity: EntityDescription?) -> [(name: String, type: String)] {
        guard let entity else { return [] }
        var all = requiredParameters(of: entity)
        for ancestor in model.ancestors(of: entity.name) {
            for p in requiredParameters(of: ancestor) where !all.contains(where: { $0.name == p.name }) { all.append(p) }
        }
        return all
    }

    /// `init(name: String, id: UUID)`: the stored properties the class must be given. A
    /// subclass takes its superclass's too (all its ancestors'), after its own, and passes them
    /// on; with none of its own it overrides the superclass's initializer of the same shape.
    func initializer(_ own: [(name: String, type: String)], inherited: [(name: String, type: String)], subclass: Bool) -> [String] {
        let all = own + inherited.filter { p in !own.contains { $0.name == p.name } }
        let list = all.map { SwiftNames.escaped($0.name) + ": " + $0.type }.joined(separator: ", ")
        var lines = [(subclass && own.isEmpty ? "override " : "") + "init(\(list)) {"]
        for p in own { lines.append("    self.\(SwiftNames.escaped(p.name)) = \(SwiftNames.escaped(p.name))") }
        if subclass {
            lines.append("    super.init(" + inherited.map { "\(SwiftNames.escaped($0.name)): \(SwiftNames.escaped($0.name))" }.joined(separator: ", ") + ")")
        }
        lines.append("}")
        return lines
    }

    /// The declaration, the type the initializer takes when it must be given one, and any
    /// type the attribute needs declared beside the class.
    func attribute(_ a: AttributeDescription, unique: Bool, of entity: String) -> (String, String?, [String]) {
        var options: [String] = []
        if unique { options.append(".unique") }
        if a.allowsExternalBinaryDataStorage { options.append(".externalStorage") }
        if a.isTransient { options.append(".ephemeral") }
        var nested: [String] = []
        var type = attributeType(a, of: entity)
        if a.type == .transformable {
            options.append(".transformable(by: \(SwiftNames.stringLiteral(a.valueTransformerName ?? "NSSecureUnarchiveFromData")))")
        }
        if a.type == .composite {
            let (name, declaration) = composite(a, path: a.name, of: entity)
            type = name
            nested = declaration
        } else if a.type == .codable, let shape = sample?.jsonShape(entity, a.name) {
            nested = JSONShapeTypes.declarations(shape, named: swiftType(a), indent: "")
        }
        if let old = a.renamingIdentifier, old != a.name { options.append("originalName: " + SwiftNames.stringLiteral(old)) }
        var declaration = options.isEmpty ? "" : "@Attribute(" + options.joined(separator: ", ") + ") "
        if a.isDerived { declaration = "// derived in the model (\(a.derivation ?? "no derivation given")): SwiftData has no derived attributes\n    " + declaration }
        let defaultValue = SwiftModelSource.defaultLiteral(a)
        declaration += "var \(SwiftNames.escaped(a.name)): \(type)\(a.isOptional ? "?" : "")" + (defaultValue.map { " = " + $0 } ?? "")
        let mustBeGiven = !a.isOptional && defaultValue == nil
        return (declaration, mustBeGiven ? type : nil, nested)
    }

    /// The Swift type of a property that is no composite: a codable attribute's from the JSON
    /// its rows hold (`[String]`, a struct named after it), else by its attribute type.
    func attributeType(_ a: AttributeDescription, of entity: String) -> String {
        if a.type == .codable, let shape = sample?.jsonShape(entity, a.name) {
            return JSONShapeTypes.type(of: shape, named: swiftType(a))
        }
        return swiftType(a)
    }

    func swiftType(_ a: AttributeDescription) -> String {
        switch a.type {
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .binaryData, .codable: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .transformable: return SwiftModelSource.transformableClass(of: a)
        case .objectID: return "PersistentIdentifier"
        case .composite: return SwiftNames.typeName(a.name.prefix(1).uppercased() + a.name.dropFirst())
        case .undefined: return "Data"
        }
    }

    /// A composite as SwiftData declares it: a Codable struct of its elements, or, for one
    /// element named as the composite itself (how SwiftData stores an enum), an enum of the raw
    /// values the rows hold (the model keeps no cases). `path` is the composite's key path
    /// (`author`, `author.location`), whose leaves the rows are read at.
    func composite(_ a: AttributeDescription, path: String, of entity: String, indent: String = "") -> (String, [String]) {
        let name = swiftType(a)
        let shadows = SwiftNames.standardLibraryTypes.contains(name)
            ? [indent + "/// \(name) shadows the standard library's \(name) in this module: an app may rename it (the store keeps no type names)."]
            : []
        if a.elements.count == 1, a.elements[0].name == a.name, a.elements[0].type != .composite {
            return (name, shadows + EnumCases(element: a.elements[0], rawType: swiftType(a.elements[0]),
                                              held: sample?.values(entity, path + "." + a.elements[0].name))
                .declaration(named: name, indent: indent))
        }
        var lines = shadows + [indent + "struct \(name): Codable {"]
        var inner: [String] = []
        for element in a.elements {
            var type = swiftType(element)
            if element.type == .composite {
                let (nestedName, declaration) = composite(element, path: path + "." + element.name, of: entity, indent: indent + "    ")
                type = nestedName
                inner += declaration
            }
            if element.type == .binaryData {
                if let shape = sample?.jsonShape(entity, path + "." + element.name) {
                    let named = SwiftNames.typeName(element.name.prefix(1).uppercased() + element.name.dropFirst())
                    type = JSONShapeTypes.type(of: shape, named: named)
                    inner += JSONShapeTypes.declarations(shape, named: named, indent: indent + "    ")
                    lines.append(indent + "    /// JSON in the store: SwiftData's encoding of this value.")
                } else {
                    lines.append(indent + "    /// JSON in the store: SwiftData's encoding of an array or another Codable value.")
                }
            }
            lines.append(indent + "    var \(SwiftNames.escaped(element.name)): \(type)\(element.isOptional ? "?" : "")")
        }
        if !inner.isEmpty { lines += [""] + inner }
        lines.append(indent + "}")
        return (name, lines)
    }

    func relationship(_ r: RelationshipDescription, of entity: EntityDescription) -> String {
        let destination = SwiftModelSource.className(r.destinationEntityName, in: model)
        var arguments = ["deleteRule: ." + deleteRule(r.deleteRule)]
        if r.isToMany {
            if r.minCount > 0 { arguments.append("minimumModelCount: \(r.minCount)") }
            if r.maxCount > 0 { arguments.append("maximumModelCount: \(r.maxCount)") }
        }
        if let old = r.renamingIdentifier, old != r.name { arguments.append("originalName: " + SwiftNames.stringLiteral(old)) }
        if let inverse = r.inverseName, namesInverse(r, of: entity) {
            arguments.append("inverse: \\\(destination).\(SwiftNames.escaped(inverse))")
        }
        let type = r.isToMany ? "[\(destination)]" : destination
        let ordered = r.isOrdered ? " // ordered in the model; SwiftData keeps no order" : ""
        let optional = r.isOptional || !r.isToMany ? "?" : ""
        let initial = r.isToMany && !r.isOptional ? " = []" : ""
        return "@Relationship(\(arguments.joined(separator: ", "))) var \(SwiftNames.escaped(r.name)): \(type)\(optional)\(initial)\(ordered)"
    }

    /// Which side of a pair names the inverse: the to-many side of a one-to-many, else the
    /// side whose entity and name sort first.
    func namesInverse(_ r: RelationshipDescription, of entity: EntityDescription) -> Bool {
        guard let inverseName = r.inverseName,
              case .relationship(let inverse)? = model.property(inverseName, of: r.destinationEntityName)?.property else { return true }
        if r.isToMany != inverse.isToMany { return r.isToMany }
        return (entity.name, r.name) < (r.destinationEntityName, inverse.name)
    }

    func deleteRule(_ rule: DeleteRule) -> String {
        switch rule {
        case .noAction: return "noAction"
        case .nullify: return "nullify"
        case .cascade: return "cascade"
        case .deny: return "deny"
        }
    }
}
