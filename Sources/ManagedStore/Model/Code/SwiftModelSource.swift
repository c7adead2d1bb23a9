import Foundation

/// Swift sources for a model: SwiftData `@Model` classes, or `NSManagedObject` subclasses as
/// Xcode's code generation writes them. One file per entity, named after its class.
public enum SwiftModelSource {
    public enum Style: Sendable {
        /// `@Model` classes for SwiftData.
        case swiftData
        /// `NSManagedObject` subclasses with `@NSManaged` properties and a fetch request helper.
        case managedObject
    }

    public struct File: Sendable, Equatable {
        public var name: String
        public var contents: String
    }

    /// `store`: the store whose rows say what the model leaves out (an enum's cases, the Swift
    /// type of a JSON value); without it those are left open.
    public static func files(for model: ManagedObjectModel, style: Style, store: PersistentStore? = nil) -> [File] {
        let swiftData = SwiftDataModelWriter(model: model, sample: store.map(ModelRowSample.init))
        return model.entities.map { entity in
            let type = className(of: entity)
            switch style {
            case .swiftData: return File(name: type + ".swift", contents: swiftData.source(for: entity))
            case .managedObject: return File(name: type + ".swift", contents: ManagedObjectClassWriter(model: model).source(for: entity))
            }
        }
    }

    /// The class an entity's objects are: the model's class name without its module, or the
    /// entity's name where the model names `NSManagedObject` or nothing.
    static func className(of entity: EntityDescription) -> String {
        if let declared = entity.className.map(SwiftNames.unqualified), declared != "NSManagedObject", SwiftNames.isIdentifier(declared) {
            return SwiftNames.typeName(declared)
        }
        return SwiftNames.typeName(entity.name)
    }

    static func className(_ entity: String, in model: ManagedObjectModel) -> String {
        model.entity(named: entity).map(className(of:)) ?? SwiftNames.typeName(entity)
    }

    /// The class a transformable attribute's values are, without its module: the model's
    /// value class, or `NSObject` where it names none a Swift type can spell.
    static func transformableClass(of attribute: AttributeDescription) -> String {
        let name = attribute.valueClassName.map(SwiftNames.unqualified) ?? "NSObject"
        return SwiftNames.isIdentifier(name) ? name : "NSObject"
    }

    /// Writes the files into `directory` (made if missing). Nothing that exists is
    /// overwritten, and a failure removes what this call wrote.
    public static func write(_ files: [File], to directory: String) throws -> [String] {
        let fm = FileManager.default
        let folder = URL(fileURLWithPath: directory)
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: folder.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ModelExport.Error.cannotWrite(path: folder.path, reason: "it is a file, not a folder")
        }
        let paths = files.map { folder.appendingPathComponent($0.name).path }
        if let existing = paths.first(where: fm.fileExists(atPath:)) { throw ModelExport.Error.exists(existing) }
        var written: [String] = []
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            for (file, path) in zip(files, paths) {
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
                written.append(path)
            }
        } catch {
            for path in written { try? fm.removeItem(atPath: path) }
            throw ModelExport.Error.cannotWrite(path: folder.path, reason: (error as NSError).localizedDescription)
        }
        return paths
    }

    /// A default value from the model, as a Swift literal of the attribute's type; nil when
    /// there is none or it has no literal.
    static func defaultLiteral(_ attribute: AttributeDescription) -> String? {
        // The value Core Data holds (`AttributeDefault`), so `NO` on an integer is 0 here too.
        switch (attribute.type, AttributeDefault.value(of: attribute)) {
        case (.integer16, .integer(let i)?), (.integer32, .integer(let i)?), (.integer64, .integer(let i)?):
            return String(i)
        case (.double, .double(let d)?), (.float, .double(let d)?):
            return SwiftNames.number(d)
        case (.decimal, _):
            return attribute.defaultValue.flatMap { Decimal(string: $0) }.map { "\($0)" }
        case (.boolean, .bool(let b)?):
            return b ? "true" : "false"
        case (.string, .string(let s)?):
            return SwiftNames.stringLiteral(s)
        default:
            return nil
        }
    }
}
