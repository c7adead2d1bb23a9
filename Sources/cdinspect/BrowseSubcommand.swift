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
    @OptionGroup var options: BrowseOptions
    @OptionGroup var storeOptions: BrowseStoreOptions

    func validate() throws {
        try storeOptions.validate(writing: options.write)
    }

    func run() throws {
        guard let server = CompanionProgram.path("cdinspect-browse") else {
            Diagnostics.error("the web view, cdinspect-browse, is not installed beside cdinspect (build it: swift build --product cdinspect-browse)")
            throw ExitCode(ExitStatus.failure)
        }
        let arguments = [server, store] + options.arguments + storeOptions.arguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(server, &argv)
        Diagnostics.error("cannot start \(server): \(String(cString: strerror(errno)))")
        throw ExitCode(ExitStatus.failure)
    }
}
