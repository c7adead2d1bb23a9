import ArgumentParser

/// The web view's options, declared once and read by `cdinspect browse`, the session's
/// `browse` and the server program (`cdinspect-browse`) alike.
public struct BrowseOptions: ParsableArguments {
    @Option(name: .long, help: "The port to listen on (default: a free one).")
    public var port: Int?
    @Flag(name: .long, help: "Open the web view in the default browser.")
    public var open = false
    @Flag(name: .long, help: "Offer edits, saved as a context saves them (a snapshot is taken before the first save).")
    public var write = false
    @Option(name: .long, help: ArgumentHelp("Another model or store for the model page's diff.", valueName: "other"))
    public var compare: String?

    public init() {}

    public func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port takes a port number from 0 (a free one) to 65535") }
    }

    /// The options as the server's command line takes them.
    public var arguments: [String] {
        var arguments: [String] = []
        if let port { arguments += ["--port", String(port)] }
        if open { arguments.append("--open") }
        if write { arguments.append("--write") }
        if let compare { arguments += ["--compare", compare] }
        return arguments
    }
}

/// How the web view opens the store, for the command lines that open it (a session's
/// `browse` serves the session's store as the session opened it).
public struct BrowseStoreOptions: ParsableArguments {
    /// As every command takes it: the web view is read-only unless `--write` is given, and
    /// says so; with `--readonly` a script can say it too.
    @Flag(name: .long, help: "Offer no edits (the web view's default without --write).")
    public var readonly = false
    @Flag(name: .long, help: "Open the store as evidence: no file is created or changed beside it, the -wal's commits read in place.")
    public var immutable = false
    @Option(name: .long, help: ArgumentHelp("Show a past generation the store's files hold (see 'generations'), read in place.", valueName: "token"))
    public var generation: String?
    @Option(name: .long, help: "An .xcdatamodeld, .xcdatamodel or contents file to use as the model.")
    public var model: String?
    @Option(name: .long, help: ArgumentHelp("Stop a page after this many seconds (default 30; 0: no limit).", valueName: "seconds"))
    public var timeout: Double = 30

    public init() {}

    public func validate() throws {
        guard timeout >= 0, timeout.isFinite else { throw ValidationError("--timeout takes a number of seconds, 0 for no limit") }
    }

    /// Edits need a store that can be written: both command lines refuse `--write` with
    /// `--immutable` before anything starts.
    public func validate(writing: Bool) throws {
        if writing && readonly { throw ValidationError("--write and --readonly: a read-only web view offers no edits") }
        if writing && immutable { throw ValidationError("--write and --immutable: an immutable store cannot be written") }
        if writing && generation != nil { throw ValidationError("--write and --generation: a past generation cannot be written") }
    }

    public var arguments: [String] {
        var arguments: [String] = []
        if readonly { arguments.append("--readonly") }
        if immutable { arguments.append("--immutable") }
        if let generation { arguments += ["--generation", generation] }
        if let model { arguments += ["--model", model] }
        if timeout != 30 { arguments += ["--timeout", String(timeout)] }
        return arguments
    }
}
