import ArgumentParser
import Foundation
import Inspector
import ManagedStore
import WebView

/// The web view behind `cdinspect browse STORE`, an executable of its own: swift-nio's HTTP
/// server is loaded here alone, never at the start of every other command. `cdinspect browse`
/// runs this program in its place (exec). It serves the store on 127.0.0.1 until Ctrl-C.
@main
struct BrowseServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdinspect browse",
        abstract: "See the store in a browser: a local web view on 127.0.0.1, with a token.")

    @Argument(help: "The store (or an app's bundle identifier or name).")
    var store: String
    @OptionGroup var options: BrowseOptions
    @OptionGroup var storeOptions: BrowseStoreOptions

    func validate() throws {
        try storeOptions.validate(writing: options.write)
    }

    func run() throws {
        // As cdinspect: a write past a file-size limit fails with its error, not SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        let path: String
        let opened: PersistentStore
        var openOptions = PersistentStore.Options(modelPath: storeOptions.model, readonly: true, immutable: storeOptions.immutable,
                                                   generation: storeOptions.generation)
        do {
            path = try StoreSearch.resolve(store)
            opened = try PersistentStore(path: path, options: openOptions)
        } catch {
            Self.say("error", ExitStatus.message(for: error))
            throw ExitCode(ExitStatus.code(for: error))
        }
        for warning in opened.warnings { Self.say(warning.isNote ? "note" : "warning", "\(warning)") }
        openOptions.log = nil
        var site = Site.Options(storePath: path, storeOptions: openOptions)
        site.writes = options.write
        site.compareWith = options.compare
        site.timeLimit = storeOptions.timeout
        let server: HTTPServer
        do {
            server = try HTTPServer(port: options.port ?? 0) { boundPort in
                try Site(options: site, gate: AccessGate(port: boundPort), store: opened)
            }
        } catch {
            Self.say("error", "\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        let running = server.site
        let url = running.gate.loginURL
        let mode = options.write ? "writes (Save keeps a snapshot first)" : "read-only"
        FileHandle.standardOutput.writeIgnoringErrors(Data("cdinspect: browsing \(path), \(mode); Ctrl-C stops\n\(url)\n".utf8))
        if options.open { BrowserLauncher.open(url) }
        Stop.install {
            let pending = running.pendingChanges
            if pending > 0 { Self.say("warning", "\(pending) unsaved change(s) discarded") }
            running.close()
            BrowserLauncher.cleanUp()
        }
        server.wait()
    }

    static func say(_ kind: String, _ message: String) {
        FileHandle.standardError.writeIgnoringErrors(Data("cdinspect: \(kind): \(message)\n".utf8))
    }
}

/// Ctrl-C (and SIGTERM): the server stops, after `cleanUp`, with status 0.
enum Stop {
    nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []

    static func install(_ cleanUp: @escaping @Sendable () -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanUp()
                exit(0)
            }
            source.resume()
            sources.append(source)
        }
    }
}
