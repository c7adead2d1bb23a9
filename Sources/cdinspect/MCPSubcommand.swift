import ArgumentParser
import Foundation
import Inspector

/// `cdinspect mcp STORE`: a Model Context Protocol server on standard input and output, so a
/// coding assistant can look inside a store. The server is `cdinspect-mcp`, installed beside
/// this executable (it links the MCP SDK and its networking, which cdinspect does not load);
/// this command replaces itself with it, so the client talks to the server directly. Every
/// tool runs the session command of the same name on a store opened read-only, so answers
/// and error lines are the CLI's own, and no tool can write.
struct MCPSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve STORE to a coding assistant over the Model Context Protocol (stdio), read-only.",
        discussion: """
            Tools: info, entities, schema, fetch (predicate with arguments for %@, also named where and arg as on \
            the command line; sort, limit, keys), count, \
            explain, history, cloudkit, sql (read-only, one statement, ? arguments), doctor (what is broken; with \
            model, the rows a new model version rejects), model (xml, hashes, diff, classes), migrate (the dry \
            run), snapshots, diff (against a snapshot or another store), generations (every save the store's files \
            hold) and recover (deleted objects read back), each with a title and read-only hints; the reading \
            tools take generation, a token generations lists. fetch, sql and history answer in pages of at most 1000 rows and a 4 MiB reply, \
            with 'truncated' and a nextCursor to continue (where the call's limit stopped it, limitReached \
            instead); limit 0 means no limit. Results are the JSON the commands print, also as structured content; \
            errors come back as tool errors with the line the command line prints; warnings come after the \
            answer. The model is offered as resources (cdinspect://schema and cdinspect://schema/ENTITY), and \
            prompts ask the common questions: why-not-synced, what-is-broken, will-it-migrate. \
            Calls run side by side; each stops at --timeout or when the client cancels it. The store is \
            opened read-only: nothing an assistant asks can change it. The server is the cdinspect-mcp \
            program installed beside cdinspect. See 'man cdinspect', MCP SERVER, for registering it.
            """)

    @Argument(help: "The store (or an app's bundle identifier or name).")
    var store: String
    @Option(name: .long, help: "An .xcdatamodeld, .xcdatamodel or contents file to use as the model.")
    var model: String?
    @Flag(name: .long, help: "Open the store as evidence: no file is created or changed beside it, the -wal's commits read in place.")
    var immutable = false
    @Option(name: .long, help: ArgumentHelp("Serve a past generation the store's files hold (see 'cdinspect generations'), read in place.", valueName: "token"))
    var generation: String?
    @Option(name: .long, help: ArgumentHelp("Stop a tool call after this many seconds (default 5; 0: no limit).", valueName: "seconds"))
    var timeout: String?

    func run() throws {
        guard let server = CompanionProgram.path("cdinspect-mcp") else {
            Diagnostics.error("the MCP server, cdinspect-mcp, is not installed beside cdinspect (build it: swift build --product cdinspect-mcp)")
            throw ExitCode(ExitStatus.failure)
        }
        let version = CDInspect.configuration.version.split(separator: " ").first.map(String.init) ?? "0"
        let arguments = [server, store] + (model.map { ["--model", $0] } ?? []) + (immutable ? ["--immutable"] : [])
            + (generation.map { ["--generation", $0] } ?? [])
            + (timeout.map { ["--timeout", $0] } ?? []) + ["--version", version]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(server, &argv)
        Diagnostics.error("cannot start \(server): \(String(cString: strerror(errno)))")
        throw ExitCode(ExitStatus.failure)
    }
}
