/// Writes a model as the `contents` XML of an `.xcdatamodel`, with the element and attribute
/// names Xcode's model editor writes, so that Xcode (and `XcdatamodelReader`) open it as the
/// same model.
///
/// What the model does not know is left out rather than guessed: a fetched property's
/// predicate (the cache holds it as an archived `NSPredicate` tree), a derived attribute's
/// expression in a form not spelled (key paths and `@count` are), user info, validation rules.
public enum ModelXMLWriter {
    public static func contents(of model: ManagedObjectModel) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">

            """
        for entity in model.entities {
            var attributes: [(String, String?)] = [
                ("name", entity.name), ("representedClassName", entity.className), ("parentEntity", entity.superentityName),
                ("isAbstract", entity.isAbstract ? "YES" : nil), ("elementID", entity.renamingIdentifier),
                ("versionHashModifier", entity.versionHashModifier),
            ]
            attributes.append(("syncable", "YES"))
            let body = entityBody(entity)
            out += "    " + tag("entity", attributes, closed: body.isEmpty) + "\n"
            if !body.isEmpty {
                out += body
                out += "    </entity>\n"
            }
        }
        // Composite definitions sit at model level, after the entities, each once.
        var written: Set<String> = []
        func definitions(_ attribute: AttributeDescription) {
            guard attribute.type == .composite else { return }
            attribute.elements.forEach(definitions)
            let name = compositeName(attribute)
            guard written.insert(name).inserted else { return }
            out += "    " + tag("compositeAttribute", [("name", name)], closed: false) + "\n"
            for element in attribute.elements.sorted(by: { $0.name < $1.name }) {
                out += "        " + tag("attribute", attributeFields(element), closed: true) + "\n"
            }
            out += "    </compositeAttribute>\n"
        }
        for entity in model.entities {
            for case .attribute(let a) in entity.properties.sorted(by: { $0.name < $1.name }) { definitions(a) }
        }
        out += "</model>\n"
        return out
    }

    /// The definition's name: as the model file had it, else (from a cache, which keeps
    /// none) the attribute's name capitalized.
    static func compositeName(_ attribute: AttributeDescription) -> String {
        attribute.compositeName ?? (attribute.name.prefix(1).uppercased() + attribute.name.dropFirst())
    }

    private static func entityBody(_ entity: EntityDescription) -> String {
        var out = ""
        // Xcode's order: attributes, relationships, fetched properties, each by name.
        func rank(_ p: PropertyDescription) -> Int {
            switch p {
            case .attribute: return 0
            case .relationship: return 1
            case .fetched: return 2
            }
        }
        let properties = entity.properties.sorted { (rank($0), $0.name) < (rank($1), $1.name) }
        for property in properties {
            switch property {
            case .attribute(let a):
                out += "        " + tag("attribute", attributeFields(a), closed: true) + "\n"
            case .relationship(let r):
                out += "        " + tag("relationship", relationshipFields(r), closed: true) + "\n"
            case .fetched(let f):
                out += "        " + tag("fetchedProperty", [("name", f.name), ("optional", "YES")], closed: false) + "\n"
                out += "            " + tag("fetchRequest", [("name", "fetchedPropertyFetchRequest"), ("entity", f.fetchEntityName)], closed: true) + "\n"
                out += "        </fetchedProperty>\n"
            }
        }
        for index in entity.fetchIndexes {
            out += "        " + tag("fetchIndex", [("name", index.name)], closed: false) + "\n"
            for element in index.elements {
                out += "            " + tag("fetchIndexElement", [("property", element.propertyName), ("type", element.isRTree ? "RTree" : "Binary"),
                                                                   ("order", element.isAscending ? "ascending" : "descending")], closed: true) + "\n"
            }
            out += "        </fetchIndex>\n"
        }
        if !entity.uniquenessConstraints.isEmpty {
            out += "        <uniquenessConstraints>\n"
            for constraint in entity.uniquenessConstraints {
                out += "            <uniquenessConstraint>\n"
                for name in constraint { out += "                " + tag("constraint", [("value", name)], closed: true) + "\n" }
                out += "            </uniquenessConstraint>\n"
            }
            out += "        </uniquenessConstraints>\n"
        }
        return out
    }

    private static func attributeFields(_ a: AttributeDescription) -> [(String, String?)] {
        // Xcode writes a value class only where the type leaves it open.
        let customClass = a.type == .transformable || a.type == .binaryData ? a.valueClassName : nil
        let rules = ValidationRule.modelEditorFields(a.validationRules)
        return [
            ("name", a.name), ("optional", a.isOptional ? "YES" : nil), ("transient", a.isTransient ? "YES" : nil),
            ("derived", a.isDerived ? "YES" : nil), ("derivation", a.isDerived ? a.derivation.map(DerivationText.modelEditorText) : nil),
            ("attributeType", a.type.modelName), ("minValueString", rules.minimum), ("maxValueString", rules.maximum),
            ("regularExpressionString", rules.pattern),
            (a.type == .date ? "defaultDateTimeInterval" : "defaultValueString", AttributeDefault.text(of: a)),
            ("allowsExternalBinaryDataStorage", a.allowsExternalBinaryDataStorage ? "YES" : nil),
            ("valueTransformerName", a.valueTransformerName), ("customClassName", customClass),
            ("preserveAfterDeletion", a.preservesValueInHistoryOnDeletion ? "YES" : nil), ("elementID", a.renamingIdentifier),
            ("composite", a.type == .composite ? compositeName(a) : nil), ("versionHashModifier", a.versionHashModifier),
        ]
    }

    private static func relationshipFields(_ r: RelationshipDescription) -> [(String, String?)] {
        let deleteRule: String
        switch r.deleteRule {
        case .noAction: deleteRule = "No Action"
        case .nullify: deleteRule = "Nullify"
        case .cascade: deleteRule = "Cascade"
        case .deny: deleteRule = "Deny"
        }
        return [
            ("name", r.name), ("optional", r.isOptional ? "YES" : nil), ("transient", r.isTransient ? "YES" : nil),
            ("toMany", r.isToMany ? "YES" : nil), ("minCount", r.minCount > 0 ? String(r.minCount) : nil),
            // A cache's -1 (unbounded, as some models store it) is kept: the version hash counts it.
            ("maxCount", r.isToMany ? (r.maxCount != 0 ? String(r.maxCount) : nil) : "1"),
            ("deletionRule", deleteRule), ("ordered", r.isOrdered ? "YES" : nil),
            ("destinationEntity", r.destinationEntityName), ("inverseName", r.inverseName),
            ("inverseEntity", r.inverseName == nil ? nil : r.destinationEntityName), ("elementID", r.renamingIdentifier),
            ("versionHashModifier", r.versionHashModifier),
        ]
    }

    private static func tag(_ name: String, _ attributes: [(String, String?)], closed: Bool) -> String {
        var out = "<" + name
        for (key, value) in attributes {
            guard let value else { continue }
            out += " \(key)=\"\(escape(value))\""
        }
        return out + (closed ? "/>" : ">")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
