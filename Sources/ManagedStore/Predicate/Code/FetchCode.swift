import Foundation

/// A fetch written as the code an app holds: a `#Predicate`, a SwiftData `FetchDescriptor`,
/// an `NSPredicate`, or an `NSFetchRequest` set-up. Each is made from the parsed request, so
/// either syntax given to cdinspect comes out in any of them.
public enum FetchCode {
    public enum Form: String, Sendable, CaseIterable {
        case swift
        case fetchDescriptor = "fetch-descriptor"
        case nspredicate
        case fetchRequest = "fetch-request"
    }

    public static func write(_ request: FetchRequest, as form: Form, model: ManagedObjectModel?) throws -> String {
        switch form {
        case .swift:
            return try SwiftPredicateWriter.predicate(request.predicate ?? .constant(true), entity: request.entityName, model: model)
        case .fetchDescriptor:
            return try fetchDescriptor(request, model: model)
        case .nspredicate:
            return nsPredicate(request.predicate ?? .constant(true))
        case .fetchRequest:
            return fetchRequest(request)
        }
    }

    /// `NSPredicate(format: "age > 30 AND name BEGINSWITH %@", "d")`: strings and dates as
    /// arguments, the rest inline.
    public static func nsPredicate(_ predicate: Predicate) -> String {
        var writer = NSPredicateWriter(placeholders: true)
        let format = writer.write(predicate)
        let arguments = writer.arguments.map { value -> String in
            if case .date(let seconds) = value { return "Date(timeIntervalSinceReferenceDate: \(SwiftNames.number(seconds))) as NSDate" }
            return (try? SwiftNames.literal(value)) ?? "nil"
        }
        return "NSPredicate(format: " + ([SwiftNames.stringLiteral(format)] + arguments).joined(separator: ", ") + ")"
    }

    static func fetchDescriptor(_ request: FetchRequest, model: ManagedObjectModel?) throws -> String {
        let type = SwiftNames.typeName(request.entityName)
        var parts: [String] = []
        if let predicate = request.predicate {
            let macro = try SwiftPredicateWriter.predicate(predicate, entity: request.entityName, model: model)
            parts.append("predicate: " + macro.replacingOccurrences(of: "\n", with: "\n    "))
        }
        if !request.sortDescriptors.isEmpty {
            let sorts = try request.sortDescriptors.map { sort -> String in
                let path = try keyPath(sort.keyPath, entity: request.entityName, model: model)
                return "SortDescriptor(\\.\(path)\(sort.ascending ? "" : ", order: .reverse"))"
            }
            parts.append("sortBy: [" + sorts.joined(separator: ", ") + "]")
        }
        let mutable = request.fetchLimit != nil || request.fetchOffset != nil
        var lines = ["\(mutable ? "var" : "let") descriptor = FetchDescriptor<\(type)>(" + (parts.isEmpty ? ")" : "")]
        if !parts.isEmpty {
            lines.append("    " + parts.joined(separator: ",\n    "))
            lines.append(")")
        }
        if let limit = request.fetchLimit { lines.append("descriptor.fetchLimit = \(limit)") }
        if let offset = request.fetchOffset { lines.append("descriptor.fetchOffset = \(offset)") }
        return lines.joined(separator: "\n")
    }

    /// A sort key path in Swift: `owner?.name` where the to-one can be nil.
    static func keyPath(_ path: String, entity: String, model: ManagedObjectModel?) throws -> String {
        var out: [String] = []
        var current: String? = entity
        var optional = false
        for key in path.split(separator: ".").map(String.init) {
            guard SwiftNames.isIdentifier(key) else { throw PredicateCodeError("the sort key '\(path)'", "it is not a Swift key path") }
            out.append((optional ? "?." : (out.isEmpty ? "" : ".")) + SwiftNames.escaped(key))
            if let model, let name = current, let (property, _) = model.allProperties(of: name).first(where: { $0.property.name == key }),
               case .relationship(let r) = property {
                optional = optional || r.isOptional
                current = r.destinationEntityName
            } else {
                current = nil
            }
        }
        return out.joined()
    }

    static func fetchRequest(_ request: FetchRequest) -> String {
        let type = SwiftNames.typeName(request.entityName)
        var lines = ["let request = NSFetchRequest<\(type)>(entityName: \(SwiftNames.stringLiteral(request.entityName)))"]
        if let predicate = request.predicate { lines.append("request.predicate = " + nsPredicate(predicate)) }
        if !request.sortDescriptors.isEmpty {
            let sorts = request.sortDescriptors.map { "NSSortDescriptor(key: \(SwiftNames.stringLiteral($0.keyPath)), ascending: \($0.ascending))" }
            lines.append("request.sortDescriptors = [" + sorts.joined(separator: ", ") + "]")
        }
        if let limit = request.fetchLimit { lines.append("request.fetchLimit = \(limit)") }
        if let offset = request.fetchOffset { lines.append("request.fetchOffset = \(offset)") }
        return lines.joined(separator: "\n")
    }
}
