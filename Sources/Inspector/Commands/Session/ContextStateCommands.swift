import ArgumentParser
import ManagedStore

public struct SaveCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save the context: a root context to the store in one transaction, a child into its parent.",
        discussion: """
            Conflicts with changes saved since the context read an object are resolved by the context's \
            merge policy (context set merge-policy …); under 'error' the save fails, lists each conflicting \
            object and property, and leaves the store and the pending changes as they were.
            """)

    @OptionGroup public var context: ContextOption
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        let result = try c.save()
        for conflict in result.conflicts { session.warn("conflict resolved by \(c.mergePolicy.rawValue): \(conflict)") }
        let ids = { (list: [ObjectID]) in OutputValue.array(list.map { .objectID($0.uri) }) }
        let lines: () -> [ReportPart] = {
            [.line("saved into \(result.parent.map { "context \($0)" } ?? "the store"): "
                   + "\(result.inserted.count) inserted, \(result.updated.count) updated, \(result.deleted.count) deleted")]
                + result.inserted.map { .line("  inserted \($0.uri)") }
        }
        session.results(output).report(Report(value: {
            .object([("into", .string(result.parent ?? "store")), ("inserted", ids(result.inserted)),
                     ("updated", ids(result.updated)), ("deleted", ids(result.deleted))])
        }, people: lines, csv: lines))
    }
}

public struct RollbackCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Discard the context's unsaved changes.")
    @OptionGroup public var context: ContextOption
    public init() {}
    public func run(in session: Session) throws { try context.resolve(in: session).rollback() }
}

public struct ResetCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Forget every registered object and unsaved change of the context.")
    @OptionGroup public var context: ContextOption
    public init() {}
    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        c.reset()
        session.contexts.dropResult(c)
    }
}

public struct RefreshCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Refresh an object (or --all) from the store, as refreshObject(_:mergeChanges:).",
        discussion: """
            Without --merge the object's unsaved changes are discarded and it turns back into a fault that \
            reads its row when next used. With --merge its row is read now and its own changes stay on top. \
            --all refreshes every registered object, keeping the changes of changed ones (refreshAllObjects).
            """)

    @Argument(help: "The object ID.") public var id: String?
    @Flag(name: .long, help: "Every registered object.") public var all = false
    @Flag(name: .long, help: "Keep the object's unsaved changes, merged over the store's values.") public var merge = false
    @OptionGroup public var context: ContextOption

    public init() {}

    public func validate() throws {
        if all == (id != nil) { throw ValidationError("give an object ID or --all") }
    }

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        if all {
            try c.refreshAll()
            return
        }
        let objectID = try c.objectID(parsing: id ?? "")
        guard let object = c.registeredObject(for: objectID) else { return }
        try c.refresh(object, mergeChanges: merge)
    }
}

public struct UndoCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Undo the context's last insert, update or delete (context set undo off turns undo off).")
    @OptionGroup public var context: ContextOption
    public init() {}
    public func run(in session: Session) throws { try context.resolve(in: session).undo() }
}

public struct RedoCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "redo", abstract: "Redo what the last undo undid.")
    @OptionGroup public var context: ContextOption
    public init() {}
    public func run(in session: Session) throws { try context.resolve(in: session).redo() }
}

public struct ChangesCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "List the context's unsaved changes: inserted, updated (with the changed keys) and deleted objects.")
    @OptionGroup public var context: ContextOption
    @OptionGroup public var output: FormatOption
    public init() {}

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        let writer = session.results(output).rows(["change", "objectID", "keys"])
        for object in c.insertedObjects { writer.row([.string("inserted"), .objectID(object.objectID.uri), .null]) }
        for object in c.updatedObjects {
            writer.row([.string("updated"), .objectID(object.objectID.uri), .string(object.changedKeys.sorted().joined(separator: ","))])
        }
        for object in c.deletedObjects { writer.row([.string("deleted"), .objectID(object.objectID.uri), .null]) }
        writer.finish()
    }
}

public struct RegisteredCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "registered",
        abstract: "List the objects registered in the context and their state: fault, realized, inserted, updated or deleted.",
        discussion: "Unchanged objects are held weakly: they stay registered while the session holds them (the last fetch's or get's result) or while retains-registered-objects is on.")
    @OptionGroup public var context: ContextOption
    @OptionGroup public var output: FormatOption
    public init() {}

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        let writer = session.results(output).rows(["objectID", "state"])
        for object in c.registeredObjects { writer.row([.objectID(object.objectID.uri), .string(object.state)]) }
        writer.finish()
    }
}
