import ArgumentParser
import Foundation
import ManagedStore

/// `browse` in a session: the web view of the session's store (`cdinspect browse`'s program,
/// run as a child) until Ctrl-C, then back to the session. The web view reads and writes
/// through connections of its own: what it saves, the session's contexts see as any other
/// process's save.
public struct BrowseCommand: SessionCommand {
    public static let traits = CommandTraits()

    public static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "See the store in a browser: a local web view on 127.0.0.1, with a token, until Ctrl-C.",
        discussion: """
            The pages: the store (info, entities with counts, doctor's verdict, history), each entity's objects \
            as a grid (paged by key, sortable, a predicate box, the SQL, CSV and JSON), each object (its values, \
            binary values previewed, relationships as links both ways, its history), the model's diagram, the \
            history as a chart, doctor's space chart and findings. Each page has a JSON twin (its path with .json). \
            Pages follow the store as other processes commit. It listens on 127.0.0.1 only, on a free port unless \
            --port says, and prints its address with a random token; the token goes into a cookie on the first \
            visit. Read-only unless --write: then a value can be edited on an object's page, and Save writes \
            the changes as a context's save does (history author cdinspect-browse), after a snapshot of the \
            store. 'man cdinspect', WEB VIEW, has the whole of it.
            """)

    @OptionGroup public var options: BrowseOptions

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        if options.write && store.options.readonly && !store.options.immutable {
            throw CommandError.usage("browse --write in a session opened --readonly: open it without --readonly")
        }
        guard let program = CompanionProgram.path("cdinspect-browse") else {
            throw CommandError.failed("the web view, cdinspect-browse, is not installed beside cdinspect (build it: swift build --product cdinspect-browse)")
        }
        var arguments = [program, store.path]
        if let model = store.options.modelPath { arguments += ["--model", model] }
        if store.options.immutable { arguments.append("--immutable") }
        arguments += options.arguments
        session.output.flush()
        // The child shares the terminal: Ctrl-C reaches it, it stops, and the session goes on.
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, program, nil, nil, &argv, environ)
        guard spawned == 0 else { throw CommandError.failed("cannot start \(program): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // The Ctrl-C that stopped it was for it: the session goes on as after any command.
    }
}
