/// An `NSManagedObject` subclass for an entity, as Xcode's "Class Definition" code generation
/// writes one: the class, `fetchRequest()`, `@NSManaged` properties (numbers and Booleans as
/// scalars, other values optional, to-many relationships as `NSSet` / `NSOrderedSet`), and
/// the generated accessors of each to-many relationship.
struct ManagedObjectClassWriter {
    let model: ManagedObjectModel

    func source(for entity: EntityDescription) -> String {
        let type = SwiftModelSource.className(of: entity)
        let parent = entity.superentityName.map { SwiftModelSource.className($0, in: model) } ?? "NSManagedObject"
        var lines = ["import Foundation", "import CoreData", "",
                     "@objc(\(type))", "public class \(type): \(parent) {", "}", "",
                     "extension \(type) {",
                     "    @nonobjc public class func fetchRequest() -> NSFetchRequest<\(type)> {",
                     "        return NSFetchRequest<\(type)>(entityName: \(SwiftNames.stringLiteral(entity.name)))",
                     "    }", ""]
        var toMany: [RelationshipDescription] = []
        for property in entity.properties {
            switch property {
            case .attribute(let a):
                let note = a.type == .composite ? " // composite: its elements by name (" + a.leaves.map(\.name).joined(separator: ", ") + ")" : ""
                lines.append("    @NSManaged public var \(SwiftNames.escaped(a.name)): \(swiftType(a))\(note)")
            case .relationship(let r):
                if r.isToMany {
                    toMany.append(r)
                    lines.append("    @NSManaged public var \(SwiftNames.escaped(r.name)): \(r.isOrdered ? "NSOrderedSet" : "NSSet")?")
                } else {
                    lines.append("    @NSManaged public var \(SwiftNames.escaped(r.name)): \(SwiftModelSource.className(r.destinationEntityName, in: model))?")
                }
            case .fetched(let f):
                lines.append("    @NSManaged public var \(SwiftNames.escaped(f.name)): [\(f.fetchEntityName.map { SwiftModelSource.className($0, in: model) } ?? "NSManagedObject")]?")
            }
        }
        lines.append("}")
        for r in toMany {
            lines += [""] + accessors(r, of: type)
        }
        lines += ["", "extension \(type): Identifiable {", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    func accessors(_ r: RelationshipDescription, of type: String) -> [String] {
        let destination = SwiftModelSource.className(r.destinationEntityName, in: model)
        let capitalized = r.name.prefix(1).uppercased() + r.name.dropFirst()
        let set = r.isOrdered ? "NSOrderedSet" : "NSSet"
        var lines = ["// MARK: Generated accessors for \(r.name)", "extension \(type) {"]
        if r.isOrdered {
            lines += [
                "    @objc(insertObject:in\(capitalized)AtIndex:)",
                "    @NSManaged public func insertInto\(capitalized)(_ value: \(destination), at idx: Int)", "",
                "    @objc(removeObjectFrom\(capitalized)AtIndex:)",
                "    @NSManaged public func removeFrom\(capitalized)(at idx: Int)", "",
            ]
        }
        lines += [
            "    @objc(add\(capitalized)Object:)",
            "    @NSManaged public func addTo\(capitalized)(_ value: \(destination))", "",
            "    @objc(remove\(capitalized)Object:)",
            "    @NSManaged public func removeFrom\(capitalized)(_ value: \(destination))", "",
            "    @objc(add\(capitalized):)",
            "    @NSManaged public func addTo\(capitalized)(_ values: \(set))", "",
            "    @objc(remove\(capitalized):)",
            "    @NSManaged public func removeFrom\(capitalized)(_ values: \(set))",
            "}",
        ]
        return lines
    }

    /// Xcode's types: scalars for numbers and Booleans, optional objects for the rest; a
    /// composite attribute's value is a dictionary of its elements.
    func swiftType(_ a: AttributeDescription) -> String {
        switch a.type {
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int64"
        case .double: return "Double"
        case .float: return "Float"
        case .boolean: return "Bool"
        case .decimal: return "NSDecimalNumber?"
        case .string: return "String?"
        case .date: return "Date?"
        case .binaryData, .codable, .undefined: return "Data?"
        case .composite: return "NSDictionary?"
        case .uuid: return "UUID?"
        case .uri: return "URL?"
        case .objectID: return "NSManagedObjectID?"
        case .transformable: return SwiftModelSource.transformableClass(of: a) + "?"
        }
    }
}
