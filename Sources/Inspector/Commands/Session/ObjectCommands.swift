import ArgumentParser
import ManagedStore

/// `K=V` words: the key before the first `=`, the rest a predicate-language literal.
struct Assignments: ParsableArguments {
    @Argument(help: ArgumentHelp("Values to set, as KEY=VALUE: a predicate literal (\"text\", 42, 3.5, YES, nil, a date), or for a relationship an object ID (Car/p3) or {Car/p1,Car/p2}.", valueName: "key=value"))
    var assignments: [String] = []

    func pairs() throws -> [(key: String, text: String)] {
        try assignments.map { word in
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw CommandError.usage("expected KEY=VALUE, not '\(word)'")
            }
            return (String(word[..<equals]), String(word[word.index(after: equals)...]))
        }
    }
}

public struct GetCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show one object: its attributes and its relationships as object IDs (fires its faults).")

    @Argument(help: "The object ID: Entity/pN or x-coredata://UUID/Entity/pN.") public var id: String
    @OptionGroup public var context: ContextOption
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let (c, object) = try context.object(id, in: session)
        try session.contexts.collectResult(in: c) { hold in _ = try hold { object } }
        // Every property: attributes (transient ones too), then relationships.
        let keys = object.entity.attributes.map(\.attribute.name) + object.entity.relationships.map(\.relationship.name)
        var values: [OutputValue] = [.objectID(object.objectID.uri)]
        for key in keys { values.append(OutputValue(try c.value(of: object, key))) }
        let columns = ["objectID"] + keys
        // A table turns the object on its side (a line per property); the rest print one row.
        let row: () -> [ReportPart] = { [.rows(columns, [values])] }
        session.results(output).report(Report(value: { .array([.object(Array(zip(columns, values)))]) },
                                              people: { [.rows(["property", "value"], zip(columns, values).map { [.string($0), $1] })] },
                                              csv: row, lines: row))
        if object.isInaccessible { session.warn("\(object.objectID.uri) is marked deleted: its row is gone from the store") }
    }
}

public struct InsertCommand: SessionCommand {
    public static let traits = CommandTraits(firstArgumentIsEntity: true)

    public static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Insert an object; prints its temporary ID (it gets a permanent one when saved).",
        discussion: "Attributes start at the model's default values. Setting a relationship also sets its inverse.")

    @Argument(help: "The entity.") public var entity: String
    @OptionGroup var values: Assignments
    @OptionGroup public var context: ContextOption

    public init() {}

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        let object = try c.insert(entity, values: try values.pairs())
        session.output.line(object.objectID.uri)
    }
}

public struct UpdateCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Change properties of an object (inverse relationships follow).")

    @Argument(help: "The object ID.") public var id: String
    @OptionGroup var values: Assignments
    @OptionGroup public var context: ContextOption

    public init() {}

    public func run(in session: Session) throws {
        let (c, object) = try context.object(id, in: session)
        try c.update(object, values: try values.pairs())
    }
}

public struct DeleteCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object, applying its relationships' delete rules (nullify, cascade, deny).")

    @Argument(help: "The object ID.") public var id: String
    @OptionGroup public var context: ContextOption

    public init() {}

    public func run(in session: Session) throws {
        let (c, object) = try context.object(id, in: session)
        try c.delete(object)
    }
}

public struct ValidateCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check an object as a save would (validateForUpdate), without saving.",
        discussion: "Required values, the model's minimum, maximum and pattern, and to-many counts; each failure is named, and the status is non-zero when any is found.")

    @Argument(help: "The object ID.") public var id: String
    @OptionGroup public var context: ContextOption

    public init() {}

    public func run(in session: Session) throws {
        let (c, object) = try context.object(id, in: session)
        let failures = try c.validationFailures(of: object)
        guard failures.isEmpty else { throw ContextError.invalid(failures) }
        session.output.line("\(object.objectID.uri): valid")
    }
}
