/// Archives a model the way Core Data caches it in `Z_MODELCACHE`: a keyed archive of
/// `NSManagedObjectModel` → `NSEntityDescription` → property descriptions, each entity
/// carrying copies of its inherited properties, as Core Data's own caches do.
public enum ModelArchiver {
    /// `classNames` false archives none, as Core Data's migration does (`StoreCreator.Options.migrated`).
    public static func archive(_ model: ManagedObjectModel, classNames: Bool = true) -> PropertyListValue {
        var objects: [PropertyListValue] = [.string("$null")]
        var classes: [String: Int] = [:]
        func add(_ value: PropertyListValue) -> Int {
            objects.append(value)
            return objects.count - 1
        }
        func classRef(_ name: String) -> PropertyListValue {
            if let index = classes[name] { return .uid(index) }
            let index = add(.dictionary([(.string("$classname"), .string(name)),
                                         (.string("$classes"), .array([.string(name), .string("NSObject")]))]))
            classes[name] = index
            return .uid(index)
        }
        func object(_ className: String, _ fields: [(String, PropertyListValue)]) -> PropertyListValue {
            .dictionary(fields.map { (.string($0.0), $0.1) } + [(.string("$class"), classRef(className))])
        }
        func string(_ s: String?) -> PropertyListValue { s.map { .uid(add(.string($0))) } ?? .uid(0) }
        func dictionary(_ pairs: [(PropertyListValue, PropertyListValue)]) -> PropertyListValue {
            object("NSMutableDictionary", [("NS.keys", .array(pairs.map(\.0))), ("NS.objects", .array(pairs.map(\.1)))])
        }

        /// `NSDefaultValue` as Core Data's caches hold it: an `NSNumber` for a number or a
        /// Boolean (Notes' and Photos' caches), an `NSDate`, an `NSUUID`, a string; the value
        /// `AttributeDefault` reads, so `NO` on an integer is archived as 0 (Wire's caches). A
        /// decimal's archived form has not been seen: its text is kept.
        func defaultValue(_ a: AttributeDescription) -> PropertyListValue {
            guard let text = a.defaultValue else { return .uid(0) }
            switch (a.type, AttributeDefault.value(of: a)) {
            case (.decimal, _): return string(text)
            case (_, .integer(let i)?): return .uid(add(.integer(i)))
            case (_, .double(let d)?): return .uid(add(.real(d)))
            case (_, .bool(let b)?): return .uid(add(.bool(b)))
            case (_, .date(let t)?): return .uid(add(object("NSDate", [("NS.time", .real(t))])))
            case (_, .uuid(let u)?): return .uid(add(object("NSUUID", [("NS.uuidbytes", .data(withUnsafeBytes(of: u.uuid) { Array($0) }))])))
            default: return string(text)
            }
        }

        /// An attribute, a composite with its elements (under `NSElements`, the key the
        /// reader tries first: the key Core Data uses has not been seen).
        func attribute(_ a: AttributeDescription, _ entityRef: PropertyListValue) -> PropertyListValue {
            let className = a.type == .composite ? "NSCompositeAttributeDescription" : a.isDerived ? "NSDerivedAttributeDescription" : "NSAttributeDescription"
            var fields: [(String, PropertyListValue)] = [
                ("NSPropertyName", string(a.name)), ("NSAttributeType", .integer(Int64(a.type.rawValue))),
                ("NSIsOptional", .bool(a.isOptional)), ("NSIsTransient", .bool(a.isTransient)),
                ("NSAttributeValueClassName", string(a.valueClassName)),
                ("NSValueTransformerName", string(a.valueTransformerName)),
                ("NSDefaultValue", defaultValue(a)),
                ("NSEntity", entityRef),
                ("NSRenamingIdentifier", string(a.renamingIdentifier ?? a.name)),
            ]
            // Both flags live in NSFlagsKey, as Core Data archives them; there is no key of their own.
            let flags = (a.preservesValueInHistoryOnDeletion ? ModelCacheReader.preservedFlag : 0)
                | (a.allowsExternalBinaryDataStorage ? ModelCacheReader.externalStorageFlag : 0)
            fields.append(("NSFlagsKey", .integer(Int64(flags))))
            if a.isReadOnly { fields.append(("NSIsReadOnly", .bool(true))) }
            if let modifier = a.versionHashModifier { fields.append(("NSVersionHashModifier", string(modifier))) }
            if a.isDerived, let derivation = a.derivation { fields.append(("NSDerivationExpression", expression(derivation))) }
            // Absent when there are none, as in Core Data's caches; two NSMutableArrays when
            // there are (Notes' `SELF >= 0` with 1620).
            let rules = a.validationRules.compactMap { rule in predicate(rule.test).map { (rule, $0) } }
            if !rules.isEmpty {
                let warnings = rules.map { rule, _ -> PropertyListValue in
                    switch rule.warning {
                    case .code(let code): return .uid(add(.integer(Int64(code))))
                    case .message(let text): return string(text)
                    }
                }
                fields.append(("NSValidationPredicates", .uid(add(object("NSMutableArray", [("NS.objects", .array(rules.map(\.1)))])))))
                fields.append(("NSValidationWarnings", .uid(add(object("NSMutableArray", [("NS.objects", .array(warnings))])))))
            }
            if a.type == .composite {
                let elements = a.elements.map { PropertyListValue.uid(add(attribute($0, entityRef))) }
                fields.append(("NSElements", .uid(add(object("NSArray", [("NS.objects", .array(elements))])))))
            }
            return object(className, fields)
        }

        /// A validation rule's test as the predicate objects Core Data archives (the shape of
        /// Notes' `SELF >= 0`: a comparison operator with its variant, a self or key-path
        /// expression, a constant); nil for a test that was not read, which is not written.
        func predicate(_ test: ValidationRule.Test) -> PropertyListValue? {
            switch test {
            case .unread: return nil
            case .all(let tests), .any(let tests):
                let parts = tests.compactMap(predicate)
                guard parts.count == tests.count else { return nil }
                let type: Int64 = if case .all = test { 1 } else { 2 }
                let list = add(object("NSArray", [("NS.objects", .array(parts))]))
                return .uid(add(object("NSCompoundPredicate", [("NSCompoundPredicateType", .integer(type)), ("NSSubpredicates", .uid(list))])))
            case .not(let inner):
                guard let part = predicate(inner) else { return nil }
                let list = add(object("NSArray", [("NS.objects", .array([part]))]))
                return .uid(add(object("NSCompoundPredicate", [("NSCompoundPredicateType", .integer(0)), ("NSSubpredicates", .uid(list))])))
            case .compare(let operand, let comparison, let constant):
                let this = PropertyListValue.uid(add(object("NSSelfExpression", [("NSExpressionType", .integer(1))])))
                var left = this
                if operand == .length {
                    // `length` as CoreDataPlus' cache holds it: valueForKey: of SELF.
                    let key = add(object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", string("length"))]))
                    let arguments = add(object("NSMutableArray", [("NS.objects", .array([.uid(key)]))]))
                    left = .uid(add(object("NSKeyPathExpression", [("NSOperand", this), ("NSSelectorName", string("valueForKey:")),
                                                                   ("NSExpressionType", .integer(3)), ("NSArguments", .uid(arguments))])))
                }
                let value: PropertyListValue
                switch constant {
                case .number(let n): value = n == n.rounded() && abs(n) < 9.2e18 ? .integer(Int64(n)) : .real(n)
                case .text(let text): value = .string(text)
                case .date(let time): value = object("NSDate", [("NS.time", .real(time))])
                }
                let right = add(object("NSConstantValueExpression", [("NSConstantValue", .uid(add(value))), ("NSExpressionType", .integer(0))]))
                let type = Int64(comparison.rawValue)
                let op: PropertyListValue
                switch comparison {
                case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
                    op = object("NSComparisonPredicateOperator", [("NSModifier", .integer(0)), ("NSVariant", .integer(type)),
                                                                 ("NSOptions", .integer(0)), ("NSOperatorType", .integer(type))])
                case .equal, .notEqual:
                    op = object("NSEqualityPredicateOperator", [("NSModifier", .integer(0)), ("NSNegate", .bool(comparison == .notEqual)),
                                                               ("NSOptions", .integer(0)), ("NSOperatorType", .integer(type))])
                case .contains:
                    op = object("NSInPredicateOperator", [("NSModifier", .integer(0)), ("NSFlags", .integer(0)), ("NSOperatorType", .integer(type))])
                case .matches, .like, .beginsWith, .endsWith:
                    let name = ["NSMatchingPredicateOperator", "NSLikePredicateOperator", "NSBeginsWithPredicateOperator", "NSEndsWithPredicateOperator"][comparison.rawValue - 6]
                    op = object(name, [("NSModifier", .integer(0)), ("NSFlags", .integer(0)), ("NSOperatorType", .integer(type))])
                }
                return .uid(add(object("NSComparisonPredicate", [("NSRightExpression", .uid(right)), ("NSLeftExpression", left),
                                                                 ("NSPredicateOperator", .uid(add(op)))])))
            }
        }

        /// A derivation as the expression objects Core Data archives: a key path of SELF, or
        /// `count:(keyPath)`; read back by `ArchivedExpression` as the same text.
        func expression(_ text: String) -> PropertyListValue {
            func keyPath(_ path: String) -> PropertyListValue {
                let specifier = add(object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", string(path))]))
                let operand = add(object("NSSelfExpression", [("NSExpressionType", .integer(1))]))
                let arguments = add(object("NSArray", [("NS.objects", .array([.uid(specifier)]))]))
                return .uid(add(object("NSKeyPathExpression", [("NSOperand", .uid(operand)), ("NSSelectorName", string("valueForKeyPath:")),
                                                               ("NSExpressionType", .integer(3)), ("NSArguments", .uid(arguments))])))
            }
            guard let counted = DerivationText.countedKeyPath(text) else { return keyPath(text) }
            let argument = keyPath(counted)
            let arguments = add(object("NSArray", [("NS.objects", .array([argument]))]))
            return .uid(add(object("NSFunctionExpression", [("NSSelectorName", string("count:")), ("NSExpressionType", .integer(4)),
                                                            ("NSArguments", .uid(arguments))])))
        }

        let root = add(.null)
        // Reserve one slot per entity so properties can point at their entity.
        var entitySlots: [String: Int] = [:]
        for entity in model.entities { entitySlots[entity.name] = add(.null) }
        for entity in model.entities {
            var properties: [(PropertyListValue, PropertyListValue)] = []
            for (property, _) in model.allProperties(of: entity.name) {
                let entityRef = PropertyListValue.uid(entitySlots[entity.name]!)
                let value: PropertyListValue
                switch property {
                case .attribute(let a):
                    value = attribute(a, entityRef)
                case .relationship(let r):
                    var fields: [(String, PropertyListValue)] = [
                        ("NSPropertyName", string(r.name)),
                        ("NSDestinationEntity", entitySlots[r.destinationEntityName].map { .uid($0) } ?? .uid(0)),
                        ("_NSDestinationEntityName", string(r.destinationEntityName)),
                        ("_NSInverseRelationshipName", string(r.inverseName)),
                        ("NSMinCount", .integer(Int64(r.minCount))), ("NSMaxCount", .integer(Int64(r.maxCount))),
                        ("NSDeleteRule", .integer(Int64(r.deleteRule.rawValue))),
                        ("NSIsOptional", .bool(r.isOptional)), ("NSIsTransient", .bool(r.isTransient)),
                        ("NSEntity", entityRef),
                        ("NSRenamingIdentifier", string(r.renamingIdentifier ?? r.name)),
                    ]
                    if r.isOrdered { fields.append(("NSIsOrdered", .bool(true))) }
                    if r.isReadOnly { fields.append(("NSIsReadOnly", .bool(true))) }
                    if let modifier = r.versionHashModifier { fields.append(("NSVersionHashModifier", string(modifier))) }
                    value = object("NSRelationshipDescription", fields)
                case .fetched(let f):
                    value = object("NSFetchedPropertyDescription", [
                        ("NSPropertyName", string(f.name)), ("_NSFetchRequestEntityName", string(f.fetchEntityName)),
                        ("NSIsTransient", .bool(true)), ("NSEntity", entityRef),
                        ("NSRenamingIdentifier", string(f.name)),
                    ])
                }
                properties.append((string(property.name), .uid(add(value))))
            }
            let subentities = model.subentities(of: entity.name).map { (string($0.name), PropertyListValue.uid(entitySlots[$0.name]!)) }
            // Every entity and property of every cache Core Data wrote in the fixtures carries
            // a renaming identifier: the model's (`elementID`), else its own name.
            var renaming = [("NSRenamingIdentifier", string(entity.renamingIdentifier ?? entity.name))]
            if !entity.uniquenessConstraints.isEmpty {
                // Arrays of property names, as the reader takes them (names or descriptions).
                func array(_ items: [PropertyListValue]) -> PropertyListValue { object("NSArray", [("NS.objects", .array(items))]) }
                let tuples = entity.uniquenessConstraints.map { tuple in PropertyListValue.uid(add(array(tuple.map { string($0) }))) }
                renaming.append(("NSUniqueTuples", .uid(add(array(tuples)))))
            }
            if !entity.fetchIndexes.isEmpty {
                // As Core Data archives them (CoreDataPlus's SampleModel_V2, Photos, Screen
                // Time): an array of descriptions, each with its elements, each element naming
                // its description back.
                var descriptions: [PropertyListValue] = []
                for index in entity.fetchIndexes {
                    let slot = add(.null)
                    let elements = index.elements.map { element in
                        PropertyListValue.uid(add(object("NSFetchIndexElementDescription", [
                            ("NSPropertyName", string(element.propertyName)),
                            ("NSFetchIndexElementType", .integer(element.isRTree ? 1 : 0)),
                            ("NSFetchIndexDescription", .uid(slot)),
                            ("NSAscending", .bool(element.isAscending)),
                        ])))
                    }
                    objects[slot] = object("NSFetchIndexDescription", [
                        ("NSIndexName", string(index.name)),
                        ("NSPartialIndexPredicate", .uid(0)),
                        ("NSIndexElements", .uid(add(object("NSMutableArray", [("NS.objects", .array(elements))])))),
                        ("NSEntity", .uid(entitySlots[entity.name]!)),
                    ])
                    descriptions.append(.uid(slot))
                }
                renaming.append(("NSFetchIndexDescriptions", .uid(add(object("NSMutableArray", [("NS.objects", .array(descriptions))])))))
            }
            objects[entitySlots[entity.name]!] = object("NSEntityDescription", renaming + [
                ("NSEntityName", string(entity.name)),
                // nil when the model names no class, as Core Data archives it ($null in the
                // caches of Photos, Notes, CartKit and CoreDataPlus's SampleModel_V2).
                ("NSClassNameForEntity", string(classNames ? entity.className : nil)),
                ("NSSuperentity", entity.superentityName.flatMap { entitySlots[$0] }.map { .uid($0) } ?? .uid(0)),
                ("NSIsAbstract", .bool(entity.isAbstract)),
                ("NSVersionHashModifier", string(entity.versionHashModifier)),
                ("NSProperties", .uid(add(dictionary(properties)))),
                ("NSSubentities", .uid(add(dictionary(subentities)))),
                ("NSManagedObjectModel", .uid(root)),
            ])
        }
        let entities = dictionary(model.entities.map { (string($0.name), .uid(entitySlots[$0.name]!)) })
        objects[root] = object("NSManagedObjectModel", [("NSEntities", .uid(add(entities)))])
        return .dictionary([
            (.string("$version"), .integer(100000)),
            (.string("$archiver"), .string("NSKeyedArchiver")),
            (.string("$top"), .dictionary([(.string("root"), .uid(root))])),
            (.string("$objects"), .array(objects)),
        ])
    }
}
