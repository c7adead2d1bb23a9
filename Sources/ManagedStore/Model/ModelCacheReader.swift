import Foundation

/// Reads the `NSManagedObjectModel` that Core Data caches in `Z_MODELCACHE.Z_CONTENT`:
/// raw DEFLATE around a keyed archive, walked object by object.
public enum ModelCacheReader {
    public static func model(fromCompressed blob: [UInt8]) throws -> ManagedObjectModel {
        let plist = try BinaryPropertyList.decode(try RawInflate.inflate(blob))
        return try model(fromArchive: KeyedArchive(plist))
    }

    static func model(fromArchive archive: KeyedArchive) throws -> ManagedObjectModel {
        guard let entitiesRef = archive.uid(archive.objects[archive.root]["NSEntities"]) else {
            throw BinaryPropertyList.Error.malformed("model cache has no NSEntities")
        }
        let entityRefs = archive.dictionaryReferences(entitiesRef).map(\.value)
        // Core Data archives inherited properties again under each sub-entity, so an
        // entity declares exactly the names its superentity does not have.
        var propertyNames: [Int: Set<String>] = [:]
        for ref in entityRefs {
            propertyNames[ref] = Set(archive.dictionaryReferences(archive.uid(archive.objects[ref]["NSProperties"]))
                .compactMap { archive.objects[$0.key].stringValue })
        }
        var entities: [EntityDescription] = []
        for ref in entityRefs {
            guard let name = archive.string(ref, "NSEntityName") else { continue }
            let superRef = archive.uid(archive.objects[ref]["NSSuperentity"])
            let inherited = superRef.flatMap { propertyNames[$0] } ?? []
            var properties: [PropertyDescription] = []
            var indexed: [String] = []
            for (keyRef, valueRef) in archive.dictionaryReferences(archive.uid(archive.objects[ref]["NSProperties"])) {
                guard let propertyName = archive.objects[keyRef].stringValue, !inherited.contains(propertyName),
                      let property = self.property(valueRef, name: propertyName, archive: archive)
                else { continue }
                properties.append(property)
                if archive.value(valueRef, "NSIsIndexed")?.boolValue == true { indexed.append(propertyName) }
            }
            entities.append(EntityDescription(
                name: name,
                className: archive.string(ref, "NSClassNameForEntity"),
                isAbstract: archive.value(ref, "NSIsAbstract")?.boolValue ?? false,
                superentityName: superRef.flatMap { archive.string($0, "NSEntityName") },
                properties: properties.sorted { $0.name < $1.name },
                renamingIdentifier: renaming(archive.string(ref, "NSRenamingIdentifier"), name),
                uniquenessConstraints: uniqueTuples(ref, archive: archive),
                fetchIndexes: indexes(ref, indexed: indexed, archive: archive),
                versionHashModifier: archive.string(ref, "NSVersionHashModifier")))
        }
        return ManagedObjectModel(entities: entities, source: .modelCache)
    }

    /// The `NSFlagsKey` bit of an attribute whose value persistent history keeps on deletion.
    /// Observed, not documented: in Photos.sqlite's cache exactly the attributes one would
    /// keep (uuid, cloudDeleteState, trashedDate…) carry it, and no entity has more of them
    /// than the store's `ACHANGE` has `ZTOMBSTONEn` columns (six, on Asset and LibraryScope).
    static let preservedFlag = 16

    /// Core Data archives an element's own name as its renaming identifier when none was
    /// set; only a different name says something.
    private static func renaming(_ identifier: String?, _ name: String) -> String? {
        identifier == name ? nil : identifier
    }

    /// `NSUniqueTuples`: an array of arrays of property names (or of property descriptions).
    private static func uniqueTuples(_ ref: Int, archive: KeyedArchive) -> [[String]] {
        archive.arrayReferences(archive.uid(archive.objects[ref]["NSUniqueTuples"])).map { tuple in
            archive.arrayReferences(tuple).compactMap { member in
                archive.objects[member].stringValue ?? archive.string(member, "NSPropertyName")
            }
        }.filter { !$0.isEmpty }
    }

    /// The older index forms a cache Core Data wrote before fetch indexes (framework 847)
    /// holds: `NSIsIndexed` on an attribute and an entity's `NSCompoundIndexes` (arrays of
    /// property names). Read as the fetch indexes Core Data makes of the same forms in a model
    /// file (`XcdatamodelReader`), so the two compare equal: Wire's 2.31.0 cache holds
    /// `normalizedName` as indexed, its 2.39.0 cache the fetch index `normalizedName`.
    /// A later cache keeps both forms (Wire's 2.101.0: `localIdentifier` is `NSIsIndexed` and
    /// a fetch index); an older form is taken only where no fetch index covers the same
    /// attributes.
    private static func indexes(_ ref: Int, indexed: [String], archive: KeyedArchive) -> [FetchIndexDescription] {
        let described = fetchIndexes(ref, archive: archive)
        let covered = Set(described.map { $0.elements.map(\.propertyName) })
        let single = indexed.sorted().map { FetchIndexDescription(name: $0, elements: [.init(propertyName: $0)]) }
        let compound = archive.arrayReferences(archive.uid(archive.objects[ref]["NSCompoundIndexes"])).compactMap { tuple -> FetchIndexDescription? in
            let names = archive.arrayReferences(tuple).compactMap { archive.objects[$0].stringValue ?? archive.string($0, "NSPropertyName") }
            guard !names.isEmpty else { return nil }
            return FetchIndexDescription(name: names.joined(separator: "_"), elements: names.map { .init(propertyName: $0) })
        }
        return (single + compound).filter { !covered.contains($0.elements.map(\.propertyName)) } + described
    }

    private static func fetchIndexes(_ ref: Int, archive: KeyedArchive) -> [FetchIndexDescription] {
        archive.arrayReferences(archive.uid(archive.objects[ref]["NSFetchIndexDescriptions"])).compactMap { index in
            guard let name = archive.string(index, "NSIndexName") else { return nil }
            let elements = archive.arrayReferences(archive.uid(archive.objects[index]["NSIndexElements"])).compactMap { element -> FetchIndexDescription.Element? in
                guard let property = archive.string(element, "NSPropertyName") else { return nil }
                return FetchIndexDescription.Element(propertyName: property,
                                                     isRTree: archive.value(element, "NSFetchIndexElementType")?.integerValue == 1,
                                                     isAscending: archive.value(element, "NSAscending")?.boolValue ?? true)
            }
            return FetchIndexDescription(name: name, elements: elements)
        }
    }

    /// A composite's elements. No genuine store with a composite attribute has been seen, so
    /// the key is not known: `NSElements` (what `ModelArchiver` writes) first, else any field
    /// holding an array of attribute descriptions.
    private static func compositeElements(_ ref: Int, archive: KeyedArchive, depth: Int) -> [AttributeDescription] {
        guard depth < 8, case .dictionary(let fields) = archive.objects[ref] else { return [] }
        let preferred = fields.sorted { a, _ in a.key.stringValue == "NSElements" }
        for (_, value) in preferred {
            let members = archive.arrayReferences(archive.uid(value))
            let elements = members.compactMap { member -> AttributeDescription? in
                guard let name = archive.string(member, "NSPropertyName"),
                      case .attribute(let a)? = property(member, name: name, archive: archive, depth: depth + 1) else { return nil }
                return a
            }
            // The archive's order is the composite's element order, which the SQL entity
            // follows (sql-entity.md §1): kept as it is.
            if !elements.isEmpty, elements.count == members.count { return elements }
        }
        return []
    }

    /// The `NSFlagsKey` bit of an attribute that allows external binary storage (the archive
    /// has no separate key for it; sql-entity.md §3).
    static let externalStorageFlag = 4

    private static func property(_ ref: Int, name: String, archive: KeyedArchive, depth: Int = 0) -> PropertyDescription? {
        // An inherited property may be archived as a proxy of its superentity's description.
        if archive.className(of: ref) == "_NSPropertyDescriptionProxy", depth < 8,
           let underlying = archive.uid(archive.objects[ref]["NSUnderlyingProperty"]) {
            return property(underlying, name: name, archive: archive, depth: depth + 1)
        }
        let flag = { (key: String) in archive.value(ref, key)?.boolValue ?? false }
        let int = { (key: String) in archive.value(ref, key)?.integerValue.map(Int.init) }
        let flags = int("NSFlagsKey") ?? 0
        switch archive.className(of: ref) {
        case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            var attribute = AttributeDescription(
                name: name,
                type: AttributeType(rawValue: int("NSAttributeType") ?? 0) ?? .undefined,
                isOptional: flag("NSIsOptional"),
                isTransient: flag("NSIsTransient"),
                isDerived: archive.className(of: ref) == "NSDerivedAttributeDescription",
                valueClassName: archive.string(ref, "NSAttributeValueClassName"),
                valueTransformerName: archive.string(ref, "NSValueTransformerName"),
                allowsExternalBinaryDataStorage: flag("NSAllowsExternalBinaryDataStorage") || flags & externalStorageFlag != 0,
                defaultValue: defaultValue(archive.value(ref, "NSDefaultValue")),
                preservesValueInHistoryOnDeletion: flags & preservedFlag != 0,
                renamingIdentifier: renaming(archive.string(ref, "NSRenamingIdentifier"), name))
            attribute.defaultValue = AttributeDefault.text(of: attribute)
            attribute.isReadOnly = flag("NSIsReadOnly")
            attribute.versionHashModifier = archive.string(ref, "NSVersionHashModifier")
            attribute.validationRules = ArchivedPredicate.rules(of: ref, in: archive)
            if attribute.isDerived {
                attribute.derivation = archive.uid(archive.objects[ref]["NSDerivationExpression"])
                    .flatMap { ArchivedExpression.text(of: $0, in: archive) }
            }
            if archive.className(of: ref) == "NSCompositeAttributeDescription" {
                attribute.type = .composite
                attribute.elements = compositeElements(ref, archive: archive, depth: depth)
            }
            return .attribute(attribute)
        case "NSRelationshipDescription":
            let destination = archive.string(ref, "_NSDestinationEntityName")
                ?? archive.uid(archive.objects[ref]["NSDestinationEntity"]).flatMap { archive.string($0, "NSEntityName") }
            let inverse = archive.string(ref, "_NSInverseRelationshipName")
                ?? archive.uid(archive.objects[ref]["NSInverseRelationship"]).flatMap { archive.string($0, "NSPropertyName") }
            var relationship = RelationshipDescription(
                name: name,
                destinationEntityName: destination ?? "",
                inverseName: inverse,
                minCount: int("NSMinCount") ?? 0,
                maxCount: int("NSMaxCount") ?? 1,
                deleteRule: DeleteRule(rawValue: int("NSDeleteRule") ?? 1) ?? .nullify,
                isOrdered: flag("NSIsOrdered"),
                isOptional: flag("NSIsOptional"),
                isTransient: flag("NSIsTransient"),
                renamingIdentifier: renaming(archive.string(ref, "NSRenamingIdentifier"), name))
            relationship.isReadOnly = flag("NSIsReadOnly")
            relationship.versionHashModifier = archive.string(ref, "NSVersionHashModifier")
            return .relationship(relationship)
        case "NSFetchedPropertyDescription":
            return .fetched(FetchedPropertyDescription(name: name, fetchEntityName: archive.string(ref, "_NSFetchRequestEntityName")))
        default:
            return nil
        }
    }

    /// `NSDefaultValue` as a model file spells it (`AttributeDefault` reads it back): an
    /// `NSNumber` (Booleans as a bool or an integer), a string (plain, or an
    /// `NSMutableString` as in Wire's caches), an `NSDate` (`NS.time`, as Notes'), an `NSUUID`.
    private static func defaultValue(_ value: PropertyListValue?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .integer(let i)?: return String(i)
        case .real(let d)?: return String(d)
        case .bool(let b)?: return b ? "YES" : "NO"
        case let object?:
            if case .string(let s)? = object["NS.string"] { return s }
            if case .real(let t)? = object["NS.time"] { return String(t) }
            if case .data(let bytes)? = object["NS.uuidbytes"] { return UUID(bytes: bytes)?.uuidString }
            return nil
        case nil:
            return nil
        }
    }
}
