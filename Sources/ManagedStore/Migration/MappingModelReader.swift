import Foundation

/// Reads a mapping model as Xcode saves it (`NAME.xcmappingmodel/xcmapping.xml`): a small
/// object database of `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING` and
/// `XDDEVRELATIONSHIPMAPPING` objects (wibosco's Migration1to2 and Migration2to3,
/// BookMigration's three), each value expression an archived `NSExpression`.
///
/// The expressions read are those SQL can carry: `$source.key` in either spelling
/// (`FUNCTION($source, "valueForKeyPath:", "key")`), a constant, and for a relationship
/// `$manager`'s `destinationInstancesForEntityMappingNamed:sourceInstances:` of
/// `$source.key`. An entity mapping with a migration policy class (code in the app) and an
/// expression of any other form are refused by name: nothing is guessed.
public enum MappingModelReader {
    /// One object of the file: its type, its attributes' text, its relationships' ids.
    struct Object {
        var type = ""
        var attributes: [String: String] = [:]
        var relationships: [String: [String]] = [:]
    }

    public static func mapping(atPath path: String, from old: ManagedObjectModel, to new: ManagedObjectModel) throws -> MigrationMapping {
        var file = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            file = URL(fileURLWithPath: path).appendingPathComponent("xcmapping.xml").path
        }
        if path.hasSuffix(".cdm") {
            throw MigrationError.badMappingModel("\(path) is a compiled mapping model; give its source, the .xcmappingmodel")
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw MigrationError.badMappingModel("cannot read \(file)") }
        return try mapping(contents: Array(data), file: file, from: old, to: new)
    }

    /// The mapping an `xcmapping.xml`'s bytes describe (`file` names it in errors); the fuzz
    /// target reads hostile bytes through here.
    public static func mapping(contents bytes: [UInt8], file: String, from old: ManagedObjectModel, to new: ManagedObjectModel) throws -> MigrationMapping {
        let objects = try readObjects(bytes, file: file)
        var mapping = MigrationMapping(fromMappingModel: true)
        let entityMappings = objects.values.filter { $0.type == "XDDEVENTITYMAPPING" }
            .sorted { Int($0.attributes["mappingnumber"] ?? "") ?? 0 < Int($1.attributes["mappingnumber"] ?? "") ?? 0 }
        guard !entityMappings.isEmpty else { throw MigrationError.badMappingModel("\(file) holds no entity mapping") }
        for e in entityMappings {
            guard let destination = e.attributes["destinationname"] else { continue }
            let source = e.attributes["sourcename"]
            let name = "\(source ?? "")To\(destination)"
            if let policy = e.attributes["migrationpolicyclassname"], !policy.isEmpty, policy != "NSEntityMigrationPolicy" {
                throw MigrationError.customPolicy(entityMapping: name, policy: policy)
            }
            guard new.entity(named: destination) != nil else {
                throw MigrationError.badMappingModel("entity mapping \(name) leads to \(destination), which the new model does not have")
            }
            if let source, old.entity(named: source) == nil {
                throw MigrationError.badMappingModel("entity mapping \(name) reads \(source), which the store's model does not have")
            }
            mapping.setEntity(destination, from: source)
            let autogenerates = e.attributes["autogenerateexpression"] == "1"
            let listed = (e.relationships["attributemappings"] ?? []) + (e.relationships["relationshipmappings"] ?? [])
            for id in listed {
                guard let p = objects[id], let property = p.attributes["name"] else { continue }
                let expression = p.attributes["valueexpressiondata"]
                let value: MigrationMapping.Source
                if let expression {
                    value = try evaluate(expression, entityMapping: name, property: property)
                } else if autogenerates || p.attributes["autogenerateexpression"] == "1" {
                    // Xcode writes `$source.NAME` when it compiles the mapping model, if the
                    // source has the name.
                    let sourceNames = source.map { old.allProperties(of: $0).map(\.property.name) } ?? []
                    value = sourceNames.contains(property) ? .property(property) : .none
                } else {
                    value = .none
                }
                guard new.allProperties(of: destination).contains(where: { $0.property.name == property }) else {
                    throw MigrationError.badMappingModel("entity mapping \(name) maps \(property), which \(destination) does not have")
                }
                mapping.setProperty(property, of: destination, from: value)
            }
        }
        return mapping
    }

    /// The objects by id, from the XML's `<object>`, `<attribute>` and `<relationship>`.
    static func readObjects(_ bytes: [UInt8], file: String) throws -> [String: Object] {
        var objects: [String: Object] = [:]
        var current: (id: String, object: Object)?
        var attribute: String?
        var text = ""
        do {
            try ModelXMLReader.read(bytes, text: true) { event in
                switch event {
                case let .start(name, a):
                    switch name {
                    case "object": current = (a["id"] ?? "", Object(type: a["type"] ?? ""))
                    case "attribute": attribute = a["name"]; text = ""
                    case "relationship":
                        if let key = a["name"] { current?.object.relationships[key] = (a["idrefs"] ?? "").split(separator: " ").map(String.init) }
                    default: break
                    }
                case .text(let t):
                    if attribute != nil { text += t }
                case let .end(name):
                    if name == "attribute", let key = attribute {
                        current?.object.attributes[key] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                        attribute = nil
                    }
                    if name == "object", let done = current { objects[done.id] = done.object; current = nil }
                }
            }
        } catch let error as ModelXMLReader.Error {
            throw MigrationError.badMappingModel("\(file) is not a mapping model: \(error)")
        }
        return objects
    }

    /// A value expression (base64 of an archived `NSExpression`) as a source.
    static func evaluate(_ base64: String, entityMapping: String, property: String) throws -> MigrationMapping.Source {
        let refuse = { (what: String) in MigrationError.unevaluable(entityMapping: entityMapping, property: property, expression: what) }
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters),
              let archive = try? KeyedArchive(BinaryPropertyList.decode(Array(data))) else { throw refuse("an expression that cannot be read") }
        return try source(archive.root, archive, refuse)
    }

    private static func source(_ ref: Int, _ archive: KeyedArchive, _ refuse: (String) -> MigrationError) throws -> MigrationMapping.Source {
        let type = archive.className(of: ref) ?? "?"
        switch type {
        case "NSConstantValueExpression":
            switch archive.value(ref, "NSConstantValue") {
            case .integer(let i)?: return .value(String(i))
            case .real(let d)?: return .value(String(d))
            case .bool(let b)?: return .value(b ? "YES" : "NO")
            case .string(let s)?: return .value(s)
            case nil: return .none
            default: throw refuse("a constant of a kind not read here")
            }
        case "NSKeyPathExpression", "NSFunctionExpression":
            let selector = archive.string(ref, "NSSelectorName") ?? ""
            let arguments = archive.arrayReferences(archive.uid(archive.objects[ref]["NSArguments"]))
            let operand = archive.uid(archive.objects[ref]["NSOperand"])
            if selector == "valueForKeyPath:" || selector == "valueForKey:",
               let operand, isVariable(operand, "source", archive), arguments.count == 1,
               let key = keyPath(arguments[0], archive) {
                guard !key.contains(".") else { throw refuse("$source.\(key), a key path through a relationship") }
                return .property(key)
            }
            if selector == "destinationInstancesForEntityMappingNamed:sourceInstances:", arguments.count == 2,
               case .property(let key) = try source(arguments[1], archive, refuse) {
                return .property(key)
            }
            throw refuse("FUNCTION(…, \"\(selector)\", …)")
        default:
            throw refuse("an expression of the class \(type)")
        }
    }

    private static func isVariable(_ ref: Int, _ name: String, _ archive: KeyedArchive) -> Bool {
        archive.className(of: ref) == "NSVariableExpression" && archive.string(ref, "NSVariable") == name
    }

    private static func keyPath(_ ref: Int, _ archive: KeyedArchive) -> String? {
        switch archive.className(of: ref) {
        case "NSKeyPathSpecifierExpression": return archive.string(ref, "NSKeyPath")
        case "NSConstantValueExpression": return archive.string(ref, "NSConstantValue")
        default: return nil
        }
    }
}
