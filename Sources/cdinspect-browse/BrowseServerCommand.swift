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
    var timeout: Double = 30

    func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port takes a port number from 0 (a free one) to 65535") }
        if write && immutable { throw ValidationError("--write and --immutable: an immutable store cannot be written") }
        guard timeout >= 0, timeout.isFinite else { throw ValidationError("--timeout takes a number of seconds, 0 for no limit") }
    }

    func run() throws {
        let path: String
        let opened: PersistentStore
        var storeOptions = PersistentStore.Options(modelPath: model, readonly: true, immutable: immutable)
        do {
            path = try StoreSearch.resolve(store)
            opened = try PersistentStore(path: path, options: storeOptions)
        } catch {
            Self.say("error", ExitStatus.message(for: error))
            throw ExitCode(ExitStatus.code(for: error))
        }
        for warning in opened.warnings { Self.say("warning", "\(warning)") }
        storeOptions.log = nil
        var options = Site.Options(storePath: path, storeOptions: storeOptions)
        options.writes = write
        options.compareWith = compare
        options.timeLimit = timeout
        let server: HTTPServer
        do {
            server = try HTTPServer(port: port ?? 0) { boundPort in
                try Site(options: options, gate: AccessGate(port: boundPort), store: opened)
            }
        } catch {
            Self.say("error", "\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        let site = server.site
        let url = site.gate.loginURL
        let mode = write ? "writes (Save keeps a snapshot first)" : "read-only"
        FileHandle.standardOutput.write(Data("cdinspect: browsing \(path), \(mode); Ctrl-C stops\n\(url)\n".utf8))
        if open { BrowserLauncher.open(url) }
        Stop.install {
            let pending = site.pendingChanges
            if pending > 0 { Self.say("warning", "\(pending) unsaved change(s) discarded") }
            site.close()
            BrowserLauncher.cleanUp()
        }
        server.wait()
    }

    static func say(_ kind: String, _ message: String) {
        FileHandle.standardError.write(Data("cdinspect: \(kind): \(message)\n".utf8))
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
