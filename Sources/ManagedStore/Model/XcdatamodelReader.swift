import Foundation

/// Reads a model from Xcode's model files: an `.xcdatamodeld` bundle (its current version),
/// an `.xcdatamodel` folder, or a bare `contents` XML file.
public enum XcdatamodelReader {
    public struct Error: Swift.Error, CustomStringConvertible {
        public let description: String
    }

    /// The model of a model file, refused when Core Data would not load it (`loadProblem`).
    public static func model(atPath path: String) throws -> ManagedObjectModel {
        let contents = try contentsFile(for: path)
        guard let data = FileManager.default.contents(atPath: contents) else {
            throw Error(description: "cannot read model file \(contents)")
        }
        let read = try model(contents: [UInt8](data), file: contents, source: path)
        if let problem = read.loadProblem { throw Error(description: problem) }
        return read
    }

    /// The model a `contents` file's bytes describe (`file` names it in errors, `source` is
    /// where the model came from). The fuzz target reads hostile bytes through here.
    public static func model(contents data: [UInt8], file contents: String, source path: String) throws -> ManagedObjectModel {
        var builder = ModelBuilder()
        do {
            try ModelXMLReader.read(data) { event in
                switch event {
                case let .start(name, attributes): builder.start(name, attributes)
                case let .end(name): builder.end(name)
                case .text: break
                }
            }
        } catch let error as ModelXMLReader.Error {
            throw Error(description: "\(contents) is not an Xcode data model: \(error)")
        }
        guard builder.sawModel else {
            throw Error(description: "\(contents) is not an Xcode data model: it has no <model> element")
        }
        var model = ManagedObjectModel(entities: builder.resolvedEntities(), source: .modelFile(path))
        model.versionIdentifier = builder.versionIdentifier
        return model
    }

    /// Resolves a `--model` argument to the XML file that holds the model.
    static func contentsFile(for path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Error(description: "model not found: \(path)")
        }
        guard isDirectory.boolValue else { return path }
        let url = URL(fileURLWithPath: path)
        if url.pathExtension == "xcdatamodeld" {
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: path))?
                .filter { $0.hasSuffix(".xcdatamodel") }.sorted() ?? []
            var current = versions.last
            if let data = FileManager.default.contents(atPath: url.appendingPathComponent(".xccurrentversion").path),
               let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
               let name = plist["_XCCurrentVersionName"] as? String, versions.contains(name) {
                current = name
            }
            guard let current else { throw Error(description: "\(path) holds no .xcdatamodel version") }
            return url.appendingPathComponent(current).appendingPathComponent("contents").path
        }
        let contents = url.appendingPathComponent("contents").path
        guard FileManager.default.fileExists(atPath: contents) else {
            throw Error(description: "\(path) has no contents file; give an .xcdatamodeld, an .xcdatamodel or its contents file")
        }
        return contents
    }

    /// Turns the model file's elements into entity descriptions.
    private struct ModelBuilder {
        /// The entities, each composite attribute given the elements of its definition: the
        /// one its `composite` names, else the one of its own name, else the only one. A
        /// definition that includes itself stops there rather than recursing forever.
        func resolvedEntities() -> [EntityDescription] {
            func resolve(_ attribute: AttributeDescription, seen: Set<String>) -> AttributeDescription {
                guard attribute.type == .composite else { return attribute }
                let name = attribute.compositeName
                    ?? composites.keys.first { $0.caseInsensitiveCompare(attribute.name) == .orderedSame }
                    ?? (compositeOrder.count == 1 ? compositeOrder[0] : nil)
                guard let name, let elements = composites[name], !seen.contains(name) else { return attribute }
                var resolved = attribute
                resolved.compositeName = name
                resolved.elements = elements.map { resolve($0, seen: seen.union([name])) }
                return resolved
            }
            return entities.map { entity in
                var e = entity
                e.properties = e.properties.map { property in
                    if case .attribute(let a) = property { return .attribute(resolve(a, seen: [])) }
                    return property
                }
                return e
            }
        }

        var entities: [EntityDescription] = []
        var sawModel = false
        /// `userDefinedModelVersionIdentifier`: what Core Data writes into a store's metadata.
        var versionIdentifier: String?
        /// The file was saved by Xcode's model editor (`lastSavedToolsVersion`), whose compiled
        /// models gain an index beside some fetch indexes (`attributeIndexes`); a model this
        /// project writes (`ModelXMLWriter`) lists every index it has instead.
        private var savedByXcode = false
        private var current: EntityDescription?
        private var fetched: FetchedPropertyDescription?
        /// `<compositeAttribute name=…>` definitions at model level, by name.
        private var composites: [String: [AttributeDescription]] = [:]
        private var compositeOrder: [String] = []
        private var composite: String?
        private var constraint: [String]?
        private var fetchIndex: FetchIndexDescription?
        /// The entity's `<compoundIndex>` being read.
        private var compoundIndex: FetchIndexDescription?
        /// The fetch indexes the entity's older index forms make: of `indexed="YES"`, of `<compoundIndex>`.
        private var indexedAttributes: [FetchIndexDescription] = []
        private var compoundIndexes: [FetchIndexDescription] = []

        /// The fetch indexes Core Data makes beside a fetch index over one attribute named
        /// `by<Attribute>` (any case): a second one named after the attribute. Observed, the
        /// mechanism unknown: the attribute of every one-attribute fetch index is `NSIsIndexed`
        /// in the caches seen, but only these gain the second index, in the cache and in the
        /// store: DuckDuckGo's Bookmarks (`byUUID` → `Z_BookmarkEntity_uuid` beside
        /// `Z_BookmarkEntity_byUUID`, frameworks 1251 to 1333) and SyncMetadata (1338), Screen
        /// Time's `byIdentifier`, `byDSID`, `byBundleIdentifier`, `byStartDate` (1044); not
        /// DuckDuckGo's `domainIndex` (1338) nor knowledgeC's `byNameIndex` (851). Not over a
        /// to-one (Screen Time's `byUser`), whose key has its index already; not where the
        /// entity has an index of that name.
        static func attributeIndexes(of entity: EntityDescription, besides older: [FetchIndexDescription]) -> [FetchIndexDescription] {
            let attributes = Set(entity.properties.compactMap { property -> String? in
                if case .attribute(let a) = property { return a.name }
                return nil
            })
            var names = Set((entity.fetchIndexes + older).map(\.name))
            var made: [FetchIndexDescription] = []
            for index in entity.fetchIndexes where index.elements.count == 1 {
                let element = index.elements[0]
                guard !element.isRTree, attributes.contains(element.propertyName),
                      index.name.lowercased() == "by" + element.propertyName.lowercased(),
                      names.insert(element.propertyName).inserted else { continue }
                made.append(FetchIndexDescription(name: element.propertyName, elements: [.init(propertyName: element.propertyName)]))
            }
            return made
        }

        /// `elementID`, where it names something other than the element itself: one equal to
        /// the name says nothing (Core Data's cache holds the name when there is none; Wire's
        /// `messages` has `elementID="messages"`), and reads as none, as the cache reader does.
        static func renaming(_ a: [String: String]) -> String? {
            a["elementID"] == a["name"] ? nil : a["elementID"]
        }

        mutating func start(_ element: String, _ a: [String: String]) {
            let yes = { (key: String) in a[key] == "YES" }
            switch element {
            case "model":
                sawModel = true
                versionIdentifier = a["userDefinedModelVersionIdentifier"]
                savedByXcode = a["lastSavedToolsVersion"] != nil
            case "entity":
                indexedAttributes = []
                compoundIndexes = []
                current = EntityDescription(name: a["name"] ?? "", className: a["representedClassName"],
                                            isAbstract: yes("isAbstract"), superentityName: a["parentEntity"],
                                            renamingIdentifier: Self.renaming(a), versionHashModifier: a["versionHashModifier"])
            case "compositeAttribute":
                composite = a["name"] ?? ""
                if let name = composite, composites[name] == nil { composites[name] = []; compositeOrder.append(name) }
            case "attribute":
                var attribute = AttributeDescription(
                    name: a["name"] ?? "",
                    type: a["attributeType"].flatMap(AttributeType.init(modelName:)) ?? .undefined,
                    isOptional: yes("optional"),
                    isTransient: yes("transient"),
                    isDerived: yes("derived"),
                    valueClassName: a["customClassName"],
                    valueTransformerName: a["valueTransformerName"],
                    allowsExternalBinaryDataStorage: yes("allowsExternalBinaryDataStorage"),
                    defaultValue: a["attributeType"] == "Date" ? a["defaultDateTimeInterval"] : a["defaultValueString"],
                    preservesValueInHistoryOnDeletion: yes("preserveAfterDeletion"),
                    renamingIdentifier: Self.renaming(a))
                if attribute.type == .composite { attribute.compositeName = a["composite"] }
                // One spelling per default value, as the cache holds values (`NO` of an integer is 0).
                attribute.defaultValue = AttributeDefault.text(of: attribute)
                attribute.validationRules = ValidationRule.fromModelEditor(type: attribute.type, minimum: a["minValueString"],
                                                                           maximum: a["maxValueString"], pattern: a["regularExpressionString"])
                attribute.versionHashModifier = a["versionHashModifier"]
                if attribute.isDerived {
                    attribute.isReadOnly = true
                    attribute.derivation = a["derivation"].flatMap(DerivationText.expression(fromModelEditor:))
                }
                if current == nil, let composite {
                    composites[composite, default: []].append(attribute)
                } else {
                    current?.properties.append(.attribute(attribute))
                    // The older form of an index, `indexed="YES"`: the fetch index Core Data
                    // (framework 847 and later) makes of it, named after the attribute. Wire's
                    // model files keep the flag; every store Core Data wrote from them since
                    // 847 has `Z_User_normalizedName` and a cache holding `normalizedName`.
                    if yes("indexed"), !attribute.name.isEmpty {
                        indexedAttributes.append(FetchIndexDescription(name: attribute.name, elements: [.init(propertyName: attribute.name)]))
                    }
                }
            case "relationship":
                let toMany = yes("toMany")
                var relationship = RelationshipDescription(
                    name: a["name"] ?? "",
                    destinationEntityName: a["destinationEntity"] ?? "",
                    inverseName: a["inverseName"],
                    minCount: a["minCount"].flatMap(Int.init) ?? 0,
                    maxCount: toMany ? (a["maxCount"].flatMap(Int.init) ?? 0) : 1,
                    deleteRule: a["deletionRule"].flatMap(DeleteRule.init(modelName:)) ?? .nullify,
                    isOrdered: yes("ordered"),
                    isOptional: yes("optional"),
                    isTransient: yes("transient"),
                    renamingIdentifier: Self.renaming(a))
                relationship.versionHashModifier = a["versionHashModifier"]
                current?.properties.append(.relationship(relationship))
            case "fetchedProperty":
                fetched = FetchedPropertyDescription(name: a["name"] ?? "", fetchEntityName: nil)
            case "fetchRequest":
                fetched?.fetchEntityName = a["entity"]
            case "uniquenessConstraint":
                constraint = []
            case "constraint":
                if let value = a["value"] { constraint?.append(value) }
            case "fetchIndex":
                fetchIndex = FetchIndexDescription(name: a["name"] ?? "", elements: [])
            case "compoundIndex":
                // `<compoundIndexes>`, the older form of a multi-column index: named after its
                // attributes joined by `_` once they are read (Wire's stores:
                // `Z_Conversation_internalIsArchived_lastModifiedDate`).
                compoundIndex = FetchIndexDescription(name: "", elements: [])
            case "index":
                if let property = a["value"] { compoundIndex?.elements.append(.init(propertyName: property)) }
            case "fetchIndexElement":
                if let property = a["property"] {
                    fetchIndex?.elements.append(.init(propertyName: property, isRTree: a["type"]?.lowercased() == "rtree",
                                                      isAscending: a["order"] != "descending"))
                }
            default:
                break
            }
        }

        mutating func end(_ element: String) {
            switch element {
            case "entity":
                if var entity = current {
                    entity.properties.sort { $0.name < $1.name }
                    // Core Data's cache lists the indexes made of the older forms first, the
                    // attributes' in name order, then the compound ones (Wire's 2.101.0 cache).
                    entity.fetchIndexes = indexedAttributes.sorted { $0.name < $1.name } + compoundIndexes
                        + (savedByXcode ? Self.attributeIndexes(of: entity, besides: indexedAttributes + compoundIndexes) : []) + entity.fetchIndexes
                    entities.append(entity)
                }
                current = nil
            case "fetchedProperty":
                if let f = fetched { current?.properties.append(.fetched(f)) }
                fetched = nil
            case "compositeAttribute":
                composite = nil
            case "uniquenessConstraint":
                if let c = constraint, !c.isEmpty { current?.uniquenessConstraints.append(c) }
                constraint = nil
            case "fetchIndex":
                if let i = fetchIndex { current?.fetchIndexes.append(i) }
                fetchIndex = nil
            case "compoundIndex":
                if var i = compoundIndex, !i.elements.isEmpty {
                    i.name = i.elements.map(\.propertyName).joined(separator: "_")
                    compoundIndexes.append(i)
                }
                compoundIndex = nil
            default:
                break
            }
        }
    }
}
