import ArgumentParser
import ManagedStore

extension BatchResultType: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// What both batch requests take: the entity, the predicate, the result type and format.
public struct BatchTarget: ParsableArguments {
    @Argument(help: "The entity (its sub-entities' rows are included).", completion: EntityCompletion.kind) public var entity: String
    @OptionGroup public var predicate: PredicateOptions
    @Option(name: .long, help: ArgumentHelp("What to print: status (default), count or ids.", valueName: "type"))
    public var result: BatchResultType = .status
    @OptionGroup public var output: FormatOption

    public init() {}

    /// Runs the request on the store's coordinator and prints its result. In a session the
    /// changed IDs are kept for 'merge', whatever is printed.
    func run(in session: Session, _ execute: (Coordinator, ManagedStore.Predicate?, _ collectingIDs: Bool) throws -> BatchResult) throws {
        let done = try execute(session.contexts.coordinator, try predicate.predicate(entity: entity, model: session.store.model, store: session.store, warn: session.warn), !session.runsOneCommand)
        BatchOutput.print(done, type: result, in: session, results: session.results(output))
    }
}

public struct BatchUpdateCommand: SessionCommand {
    public static let traits = CommandTraits(group: .change, firstArgumentIsEntity: true)

    public static let configuration = CommandConfiguration(
        commandName: "batch-update",
        abstract: "Update every matching row straight in the store (NSBatchUpdateRequest).",
        discussion: """
            One 'UPDATE OR FAIL … SET …, Z_OPT = (Z_OPT + 1) WHERE …' in one transaction; sub-entities' rows \
            are included and other entities sharing the table are left alone. Each --set is KEY=VALUE: a \
            literal ("DaveUpdate", 30, YES, nil) or an expression over the row's own attributes (age + 1, \
            score * 2). Each value must fit its attribute (an Integer 16's range, 0 or 1 for a Boolean, not nil \
            when the attribute is not optional); the first row whose value does not fails the whole request, \
            and nothing changes. No context sees the change until it refreshes or merges it ('merge' takes the IDs \
            of the last batch request). --result: status (true), count (rows changed) or ids (their object IDs).
            """)

    @OptionGroup public var target: BatchTarget
    @Option(name: .customLong("set"), parsing: .singleValue, help: ArgumentHelp("A new value, KEY=VALUE; repeatable.", valueName: "key=value"))
    public var assignments: [String] = []

    public init() {}

    public func run(in session: Session) throws {
        let values = try assignments.map { text -> (key: String, expression: String) in
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                throw CommandError.usage("--set takes KEY=VALUE, not '\(text)'")
            }
            return (String(text[..<eq]).trimmingCharacters(in: .whitespaces), String(text[text.index(after: eq)...]))
        }
        try target.run(in: session) { coordinator, predicate, collecting in
            try coordinator.execute(BatchUpdateRequest(entityName: target.entity, predicate: predicate, predicateText: target.predicate.text,
                                                       propertiesToUpdate: values, resultType: target.result), collectingIDs: collecting, origin: session.contexts.current.historyOrigin)
        }
    }
}

public struct BatchDeleteCommand: SessionCommand {
    public static let traits = CommandTraits(group: .change, firstArgumentIsEntity: true)

    public static let configuration = CommandConfiguration(
        commandName: "batch-delete",
        abstract: "Delete every matching row straight in the store (NSBatchDeleteRequest).",
        discussion: """
            In one transaction, with the delete rules of the deleted rows' relationships: cascade deletes \
            the destinations, deny fails the request and changes nothing, nullify clears the keys and join \
            rows that point at the deleted rows. No context sees the change until it merges it ('merge'). \
            --result: status (true), count (rows the predicate matched) or ids (their object IDs).
            """)

    @OptionGroup public var target: BatchTarget

    public init() {}

    public func run(in session: Session) throws {
        try target.run(in: session) { coordinator, predicate, collecting in
            try coordinator.execute(BatchDeleteRequest(entityName: target.entity, predicate: predicate, predicateText: target.predicate.text,
                                                       resultType: target.result), collectingIDs: collecting, origin: session.contexts.current.historyOrigin)
        }
    }
}

/// How batch-update and batch-delete print their result, and remember it for `merge`.
enum BatchOutput {
    static func print(_ result: BatchResult, type: BatchResultType, in session: Session, results: Results) {
        result.warnings.forEach(session.warn)
        if !session.runsOneCommand { session.lastBatch = result }
        switch type {
        case .status: results.scalar("status", .bool(true), text: "true")
        case .count: results.scalar("count", .integer(Int64(result.count)))
        case .ids:
            let writer = results.rows(["objectID"])
            for id in result.objectIDs(result.changed) + result.objectIDs(result.deleted) { writer.row([.objectID(id.uri)]) }
            writer.finish()
        }
    }
}
