import Foundation
import Inspector
import ManagedStore

/// The web view's edits, with `--write`: one session on a connection that writes, whose
/// context holds the pending changes of every page. An edit is the session's `update`; Save
/// is its `save` (history recorded with the author `cdinspect-browse`), Discard its
/// `rollback`; the changes are listed as `changes` lists them. Before the first save a
/// snapshot of the store is taken, so `restore` undoes the whole session. Saving is refused
/// while another process has the store open, and on a store CloudKit mirrors, until the page's
/// guard is acknowledged (as import's `--force` and `--allow-cloudkit`).
final class Editor: @unchecked Sendable {
    static let author = "cdinspect-browse"

    let lock = NSLock()
    let store: PersistentStore
    private let sink = OutputSink(collectingWithWidth: nil, byteLimit: 8 << 20)
    private let session: Session
    // Read and written only while holding `lock`.
    private var acknowledged = false
    private var snapshot: String?
    /// Problems to show on fields (by `Entity/pN.key`), from an edit or a save.
    var fieldErrors: [String: String] = [:]
    /// What the last save or discard said, for the changes page.
    var lastOutcome: (text: String, isError: Bool)?

    init(path: String, options: PersistentStore.Options) throws {
        var writing = options
        writing.readonly = false
        if writing.immutable { throw CommandError.usage("--write and --immutable: an immutable store cannot be written") }
        store = try PersistentStore(path: path, options: writing)
        session = Session(store: store, format: .json, output: sink, warn: { _ in }, note: { _ in })
        try run(["context", "set", "author", Self.author])
        try run(["context", "set", "bundle", Self.author])
    }

    func close() {
        lock.withLock { session.close() }
    }

    /// Runs a command in the editing session; the lock is the caller's to hold.
    @discardableResult
    func run(_ words: [String]) throws -> CommandAnswer {
        let collector = Collector()
        sink.resultReceiver = collector
        defer { sink.resultReceiver = nil }
        try session.run(try CommandTable.parse(words))
        return CommandAnswer(rows: collector.rows, answer: collector.answer)
    }

    private final class Collector: ResultReceiver {
        var rows: [OutputValue] = []
        var answer: OutputValue?
        func receive(_ record: OutputValue) -> Bool { rows.append(record); return true }
        func receive(answer: OutputValue) { self.answer = answer }
    }

    /// The pending changes, one row per object (`changes`).
    var pending: [OutputValue] { lock.withLock { (try? run(["changes"]).rows) ?? [] } }

    var pendingCount: Int { pending.count }

    /// The pending values of one object's changed attributes, as text, by key.
    func pendingValues(_ objectID: ObjectID) -> [String: String] {
        lock.withLock {
            let short = "\(objectID.entityName)/p\(objectID.primaryKey)"
            guard let row = ((try? run(["changes"]).rows) ?? []).first(where: { ValueView.shortID($0["objectID"]?.stringValue ?? "") == short }) else {
                return [:]
            }
            guard let record = record(short) else { return [:] }
            var values: [String: String] = [:]
            for key in Self.changedKeys(row) { values[key] = GridView.value(record, key).text }
            return values
        }
    }

    /// One object as `get` shows it (an array of the one record); the lock is the caller's.
    func record(_ object: String) -> OutputValue? {
        guard let answer = try? run(["get", object]) else { return nil }
        return answer.rows.first ?? answer.answer?.items.first
    }

    /// The keys a `changes` row names as changed (`age,name`).
    static func changedKeys(_ row: OutputValue) -> [String] {
        (row["keys"]?.text ?? "").split(separator: ",").map(String.init)
    }

    /// What stands between the pending changes and a save, unless acknowledged: another
    /// process with the store open, CloudKit mirroring. Nil when nothing does.
    var guardText: String? {
        lock.withLock {
            guard !acknowledged else { return nil }
            var reasons: [String] = []
            let users = ProcessUse.others(using: [store.path, store.file.walPath, store.file.sharedMemoryPath])
            if !users.isEmpty { reasons.append("\(users.map(\.description).joined(separator: ", ")) has the store open: it would find it changed under its connections") }
            if store.schema.table("ANSCKRECORDMETADATA") != nil {
                reasons.append("CloudKit mirrors this store: a save here is exported to iCloud by the app, as a change the user made")
            }
            return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
        }
    }

    /// The field's form: its pending value (or its problem), a text box, and Set.
    func form(objectID: ObjectID, key: String, pending: String?, layout: Layout) -> HTML {
        let short = "\(objectID.entityName)/p\(objectID.primaryKey)"
        let problem = lock.withLock { fieldErrors["\(short).\(key)"] }
        var html: HTML = .empty
        if let pending { html += "<div class=\"pending-value\">pending: <code>\(pending)</code></div>" }
        if let problem { html += "<div class=\"field-error\">\(problem)</div>" }
        html += """
            <form class="edit" method="post" action="\(Paths.edit)"><input type="hidden" name="csrf" value="\(layout.frame.csrfToken)">\
            <input type="hidden" name="object" value="\(short)"><input type="hidden" name="key" value="\(key)">\
            <input class="value" type="text" name="value" aria-label="new value of \(key)" placeholder="a value as update takes it: &quot;text&quot;, 42, nil">\
            <button>Set</button></form>
            """
        return html
    }

    /// A POST: an edit, Save, Discard or the guard acknowledged; then back to a page (303).
    func change(_ route: Route, _ request: WebRequest, frame: Layout.Frame, scope: CancellationScope) -> WebResponse {
        switch route {
        case .edit where request.field("reply") == "json", .insert, .delete:
            return gridChange(route, request, frame: frame)
        case .edit:
            guard let object = request.field("object"), let key = request.field("key"), let value = request.field("value"),
                  let path = Paths.object(object), !key.isEmpty, !key.contains("=") else {
                return Refusals.page(400, "An edit gives an object (Person/p3), a key and a value.")
            }
            lock.withLock {
                do {
                    // The value as the REPL's update takes it: a literal, or text.
                    try run(["update", object, "\(key)=\(value)"])
                    fieldErrors["\(object).\(key)"] = nil
                } catch {
                    fieldErrors["\(object).\(key)"] = ExitStatus.message(for: error)
                }
            }
            return .redirect(to: path + "#" + QueryItems.encode(key))
        case .save:
            if let reason = guardText {
                return .html(Layout(frame: frame).page(title: "Save", crumbs: [("store", Paths.store), ("save", nil)], twin: nil,
                                                       body: guardPage(reason, frame: frame)), status: 409)
            }
            lock.withLock {
                do {
                    if snapshot == nil, !((try? run(["changes"]).rows.isEmpty) ?? true) {
                        let name = "before-browse-" + StoreSnapshot.defaultName()
                        let kept = try StoreSnapshot.take(of: store, name: name, into: try SnapshotLibrary.newFolder(of: store, name: name))
                        snapshot = kept.name
                    }
                    let saved = try run(["save"])
                    fieldErrors = [:]
                    lastOutcome = ("Saved: \(saved.answer?.text ?? "the changes")" + (snapshot.map { ". The store as it was is the snapshot \($0) (cdinspect restore STORE \($0))." } ?? "."), false)
                } catch let ContextError.validation(failures) {
                    for failure in failures {
                        fieldErrors["\(ValueView.shortID(failure.objectID)).\(failure.key)"] = "\(failure.key) \(failure.problem)"
                    }
                    lastOutcome = ("Not saved: \(failures.count) check(s) failed, shown on their fields.", true)
                } catch {
                    lastOutcome = ("Not saved: " + ExitStatus.message(for: error), true)
                }
            }
            return .redirect(to: Paths.changes)
        case .discard:
            lock.withLock {
                _ = try? run(["rollback"])
                fieldErrors = [:]
                lastOutcome = ("The changes were discarded; the store is as it was.", false)
            }
            return .redirect(to: Paths.changes)
        case .acknowledge:
            guard request.field("understood") == "yes" else {
                return Refusals.page(400, "Tick the box to say you understand what a save does here.")
            }
            lock.withLock { acknowledged = true }
            return .redirect(to: Paths.changes)
        default:
            return Refusals.page(404, "No such change.")
        }
    }

    /// The guard: why a save needs a second thought, and the form that acknowledges it.
    func guardPage(_ reason: String, frame: Layout.Frame) -> HTML {
        """
        <h1>Save?</h1><p class="warning">\(reason).</p>
        <form method="post" action="\(Paths.acknowledge)"><input type="hidden" name="csrf" value="\(frame.csrfToken)">
        <label><input type="checkbox" name="understood" value="yes"> I understand; let this page save anyway</label> <button>Go on</button></form>
        <p><a href="\(Paths.changes)">Back to the changes</a></p>
        """
    }

    /// What the last save or discard said, and every field problem.
    var outcome: (text: String, isError: Bool)? { lock.withLock { lastOutcome } }
    var problems: [(String, String)] { fieldProblems.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    /// The same, by `Person/p3.key`, for the grid's cells.
    var fieldProblems: [String: String] { lock.withLock { fieldErrors } }
}
