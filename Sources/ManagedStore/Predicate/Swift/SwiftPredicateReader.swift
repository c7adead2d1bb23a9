/// Reads Swift predicate syntax (`#Predicate<Person> { $0.age > 30 }`, or a bare closure
/// `{ person in person.age > 30 }`) as the NSPredicate it means: the same `Predicate` tree a
/// format string parses to, so the fetch, its SQL and its in-memory match are one.
///
/// The subset is what SwiftData translates to SQL: comparisons, `&&`, `||`, `!`, arithmetic,
/// optional chaining with `??`, `== nil` and `!`, string searches, to-many `count`, `isEmpty`,
/// `contains(where:)`, `allSatisfy`, `filter { }.count`, `contains` on an array literal, dates,
/// enum cases, and variables given by name. Anything else is an error naming the construct,
/// with the NSPredicate spelling where there is one.
public enum SwiftPredicateReader {
    /// Whether `text` is written in Swift rather than as an NSPredicate format string: it
    /// starts with `#Predicate`, or is a closure (`{ $0… }`, `{ name in … }`). An NSPredicate
    /// aggregate `{1, 2}` is neither.
    public static func isSwift(_ text: String) -> Bool {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix("#Predicate") { return true }
        guard trimmed.hasPrefix("{") else { return false }
        guard let tokens = try? SwiftLexer(String(trimmed)).tokens(), tokens.count > 2 else { return false }
        if tokens.contains(where: { if case .anonymous = $0.kind { return true } else { return false } }) { return true }
        // `{ name in`, `{ name, other in`, `{ (name) in`, `{ (name: Type) in`
        var i = 1
        if tokens[i].kind == .punctuation("(") { i += 1 }
        while i + 1 < tokens.count, case .identifier = tokens[i].kind {
            if tokens[i + 1].kind == .punctuation(":") { return true }
            if tokens[i + 1].kind == .identifier("in") { return true }
            if tokens[i + 1].kind == .punctuation(")"), i + 2 < tokens.count, tokens[i + 2].kind == .identifier("in") { return true }
            guard tokens[i + 1].kind == .punctuation(",") else { return false }
            i += 2
        }
        return false
    }

    /// The predicate a Swift predicate means, for a fetch of `entity`. `model` gives the
    /// types that decide how a construct reads (a to-many's `count`, a string's `isEmpty`,
    /// an enum case's raw value); `variables` give the values of names the closure captures
    /// (`literal(_:)` reads them written as Swift literals).
    public static func parse(_ text: String, entity: String? = nil, model: ManagedObjectModel? = nil,
                             variables: [String: PredicateValue] = [:]) throws -> Predicate {
        try read(text, entity: entity, model: model, variables: variables).predicate
    }

    /// `parse`, with the enum cases the predicate read by name.
    public static func read(_ text: String, entity: String? = nil, model: ManagedObjectModel? = nil,
                            variables: [String: PredicateValue] = [:]) throws -> Reading {
        var parser = try SwiftParser(text)
        let source = try parser.source()
        let bound = variables
        let entity = entity.map { model?.entity(named: $0)?.name ?? $0 }
        var entityName = entity
        if let named = source.entity {
            if let entity, let model {
                let resolved = model.entity(named: named) ?? model.entities.first { $0.className.map(SwiftNames.unqualified) == named }
                guard let resolved else {
                    throw PredicateFormatError(.unsupported, "the model has no entity or class named \(named)", predicate: text, position: source.entityPosition)
                }
                let lineage = [entity] + model.ancestors(of: entity).map(\.name)
                guard lineage.contains(resolved.name) else {
                    throw PredicateFormatError(.unsupported, "the predicate is for \(resolved.name), and this request fetches \(entity)",
                                               predicate: text, position: source.entityPosition)
                }
                entityName = resolved.name
            } else if entity == nil {
                entityName = named
            }
        }
        var translator = SwiftPredicateTranslator(text: text, model: model, variables: bound)
        let predicate = try translator.root(source.closure, entity: entityName)
        return Reading(predicate: predicate, enumCases: translator.enumCases)
    }

    /// An enum case compared with an attribute of the fetched object (`$0.glass == .rocks`):
    /// read as its name, which is the raw value only when the app's enum says so.
    public struct EnumCase: Sendable, Equatable {
        /// The attribute's key path (`glass`, or `ice.ice` for an enum SwiftData keeps as a composite).
        public var keyPath: String
        public var name: String
    }

    /// What reading a Swift predicate gives: the predicate, and the enum cases it read by name.
    public struct Reading: Sendable {
        public var predicate: Predicate
        public var enumCases: [EnumCase]
    }

    /// A value written as a Swift literal: a number, a string, `true`/`false`, `nil`, an
    /// array of those, or a date as `Date(timeIntervalSinceReferenceDate: n)`.
    public static func literal(_ text: String, named name: String = "") throws -> PredicateValue {
        var parser = try SwiftParser(text)
        let node = try parser.expression()
        try parser.expectEnd()
        let translator = SwiftPredicateTranslator(text: text, model: nil, variables: [:])
        guard let value = translator.constant(node) else {
            throw PredicateFormatError(.syntax, "the value\(name.isEmpty ? "" : " of \(name)") is not a Swift literal (a number, \"text\", true, false, nil or [ … ])",
                                       predicate: text, position: 0)
        }
        return value
    }
}
