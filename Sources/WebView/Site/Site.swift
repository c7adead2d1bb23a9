import Foundation
import Inspector
import ManagedStore

/// The web view of one store: every request in, one response out, whatever server carries
/// them (`cdinspect browse`'s, or a test's in-process calls). In order: the Host check, the
/// token (the login link, then its cookie), the path; then a page made from the commands'
/// answers on a store of the pool, inside the request's `CancellationScope` (its time limit,
/// or the client gone); a change (POST) only with `--write`, from this server's own page.
/// Every response carries the security headers (`ResponseHeaders`).
public final class Site: @unchecked Sendable {
    public struct Options: Sendable {
        /// The store's path, resolved, and how its read-only copies open.
        public var storePath: String
        public var storeOptions: PersistentStore.Options
        /// Edits are offered and saved (`--write`).
        public var writes = false
        /// Another model or store, for the model page's diff (`--compare`).
        public var compareWith: String?
        /// Seconds a page may take.
        public var timeLimit: Double = 30

        public init(storePath: String, storeOptions: PersistentStore.Options) {
            self.storePath = storePath
            self.storeOptions = storeOptions
        }
    }

    public let options: Options
    public let gate: AccessGate
    let pool: StorePool
    let editor: Editor?
    public let live: LiveFeed
    let storeName: String

    /// `store` is opened read-only (as the pool's first copy); with `writes`, the editor
    /// opens its own connection to write through.
    public init(options: Options, gate: AccessGate, store: PersistentStore) throws {
        self.options = options
        self.gate = gate
        pool = StorePool(store)
        storeName = URL(fileURLWithPath: options.storePath).lastPathComponent
        editor = options.writes ? try Editor(path: options.storePath, options: options.storeOptions) : nil
        live = LiveFeed(path: options.storePath, options: options.storeOptions)
    }

    /// Changes waiting for Save, with `--write`.
    public var pendingChanges: Int { editor?.pendingCount ?? 0 }

    /// Stops what runs beside the requests (the live feed's follower).
    public func close() {
        live.stop()
        editor?.close()
    }

    /// The response to `request`. `scope` stops its work when the client goes or the time
    /// limit passes.
    public func respond(_ request: WebRequest, scope: CancellationScope = CancellationScope()) -> WebResponse {
        ResponseHeaders.added(to: answer(request, scope: scope))
    }

    private func answer(_ request: WebRequest, scope: CancellationScope) -> WebResponse {
        if let refusal = gate.refusal(request) { return refusal }
        let parsed: (Route, Route.Form)?
        do { parsed = try Route.parse(request.path) } catch {
            return Refusals.page(400, "This path is malformed (a broken escape, “.” or “..”, or a NUL); nothing is served from the file system.")
        }
        if parsed?.0 == .login, request.method == "GET" || request.method == "HEAD" { return gate.login(request) }
        guard gate.isAuthenticated(request) else {
            return Refusals.page(401, "Open the address cdinspect browse printed when it started: it carries this server's token.")
        }
        guard let (route, form) = parsed else { return Refusals.page(404, "No page here.") }
        switch request.method {
        case "GET", "HEAD":
            break
        case "POST":
            guard Route.changing.contains(route) else {
                return Refusals.page(405, "This page is read with GET; a change is a POST to /-/edit, /-/insert, /-/delete, /-/save or /-/discard.")
            }
            guard let editor else {
                return Refusals.page(403, "This web view is read-only: start it with cdinspect browse --write to change the store.")
            }
            if let refusal = gate.changeRefusal(request) { return refusal }
            return scope.run { editor.change(route, request, frame: frame(), scope: scope) }
        default:
            return Refusals.page(405, "\(request.method) is not a method this server answers.")
        }
        if Route.changing.contains(route) {
            return Refusals.page(405, "A change is a POST from a page's form.")
        }
        if route == .choices {
            guard let editor else { return Refusals.page(404, "Choices are offered to a web view that edits (cdinspect browse --write).") }
            return scope.run { editor.choicesAnswer(request) }
        }
        switch route {
        case .stylesheet: return WebResponse(contentType: "text/css; charset=utf-8", bytes: Array(Stylesheet.text.utf8))
        case .script: return WebResponse(contentType: "text/javascript; charset=utf-8", bytes: Array(Script.text.utf8))
        case .events: return live.subscribe(scope: scope)
        case .favicon: return WebResponse(status: 204)
        default: break
        }
        return scope.run {
            do {
                guard let pooled = try pool.borrow(for: scope) else { return Refusals.page(503, "The request was stopped.") }
                defer { pool.giveBack(pooled) }
                // `?generation=w3`: the page reads a past save the store's files hold, in
                // place, on a store opened for this request alone.
                var store = pooled
                if let generation = request.query("generation"), !generation.isEmpty {
                    var options = pooled.options
                    options.generation = generation
                    options.log = nil
                    store = try PersistentStore(path: pooled.path, options: options)
                }
                defer { if store !== pooled { store.close() } }
                scope.watch(store.reader)
                let timer = DispatchWorkItem { [timeLimit = options.timeLimit] in scope.cancel(.timeLimit(seconds: timeLimit)) }
                if options.timeLimit > 0 { DispatchQueue.global().asyncAfter(deadline: .now() + options.timeLimit, execute: timer) }
                defer { timer.cancel() }
                let page = PageRequest(store: store, request: request, form: form, layout: Layout(frame: frame()), site: self)
                return try page.respond(route)
            } catch {
                return failure(error, scope: scope, form: form)
            }
        }
    }

    /// Runs `body` with a store of the pool (a download, written after the page's own store
    /// went back), in the calling thread's scope.
    func withStore<T>(_ body: (PersistentStore) throws -> T) throws -> T {
        let scope = CancellationScope.current ?? CancellationScope()
        guard let store = try pool.borrow(for: scope) else { throw ClientGone() }
        defer { pool.giveBack(store) }
        scope.watch(store.reader)
        return try body(store)
    }

    /// What every page's frame knows: the store's name, the CSRF token, the pending changes.
    func frame() -> Layout.Frame {
        Layout.Frame(storeName: storeName, csrfToken: gate.csrfToken, writes: editor != nil, pending: editor?.pendingCount ?? 0)
    }

    /// An error as a page (or a JSON twin): what failed, in the command line's words.
    func failure(_ error: Error, scope: CancellationScope, form: Route.Form) -> WebResponse {
        var status = 500
        var message = ExitStatus.message(for: error)
        if case .timeLimit(let seconds)? = scope.reason {
            status = 503
            message = "the page stopped after \(String(format: "%g", seconds)) s, the server's time limit: ask for less (a predicate, a smaller page)"
        } else if scope.isCancelled {
            status = 503
            message = "the request was stopped"
        } else if error is CommandError || error is PredicateFormatError || error is FetchError {
            status = 400
        } else if case StoreError.unknownGeneration = error {
            status = 400
        } else if case StoreError.unreadableGeneration = error {
            status = 400
        } else if case StoreError.unknownEntity = error {
            status = 404
        } else if error is PageNotFound {
            status = 404
        } else if let blob = error as? BlobHead.Failure {
            if case .noSuchObject = blob { status = 404 } else { status = 400 }
        }
        if form == .json { return .json(OutputValue.object([("error", .string(message))]).jsonText + "\n", status: status) }
        return Refusals.page(status, message)
    }
}

/// A page that names something the store does not have (an object, a relationship).
struct PageNotFound: Error, CustomStringConvertible {
    let description: String
}
