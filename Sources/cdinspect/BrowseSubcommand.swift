import ArgumentParser
import Foundation
import Inspector

/// `cdinspect browse STORE`: the store in a browser, a web view on 127.0.0.1 with a token. The
/// server is `cdinspect-browse`, installed beside this executable (it links swift-nio's HTTP
/// server, which cdinspect does not load); this command replaces itself with it.
struct BrowseSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "See the store in a browser: a local web view on 127.0.0.1, with a token, until Ctrl-C.",
        discussion: BrowseCommand.configuration.discussion)

    @Argument(help: "The store (or an app's bundle identifier or name).")
    var store: String
    @Option(name: .long, help: "The port to listen on (default: a free one).")
    var port: Int?
    @Flag(name: .long, help: "Open the web view in the default browser.")
    var open = false
    @Flag(name: .long, help: "Offer edits, saved as a context saves them (a snapshot is taken before the first save).")
    var write = false
    @Flag(name: .long, help: "Open the store as evidence (SQLite's immutable=1): no file is created or changed beside it.")
    var immutable = false
    @Option(name: .long, help: "An .xcdatamodeld, .xcdatamodel or contents file to use as the model.")
    var model: String?
    @Option(name: .long, help: ArgumentHelp("Another model or store for the model page's diff.", valueName: "other"))
    var compare: String?
    @Option(name: .long, help: ArgumentHelp("Stop a page after this many seconds (default 30; 0: no limit).", valueName: "seconds"))
    var timeout: String?

    func run() throws {
        guard let server = CompanionProgram.path("cdinspect-browse") else {
            Diagnostics.error("the web view, cdinspect-browse, is not installed beside cdinspect (build it: swift build --product cdinspect-browse)")
            throw ExitCode(ExitStatus.failure)
        }
        var arguments = [server, store]
        if let port { arguments += ["--port", String(port)] }
        if open { arguments.append("--open") }
        if write { arguments.append("--write") }
        if immutable { arguments.append("--immutable") }
        if let model { arguments += ["--model", model] }
        if let compare { arguments += ["--compare", compare] }
        if let timeout { arguments += ["--timeout", timeout] }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(server, &argv)
        Diagnostics.error("cannot start \(server): \(String(cString: strerror(errno)))")
        throw ExitCode(ExitStatus.failure)
    }
}
