import ManagedStore

/// What a path names, and the one place paths are made. Paths name what they show, so a page
/// can be bookmarked and shared with the store: `/Person` (an entity's objects), `/Person/p3`
/// (an object, its ID as the command line writes it), `/Person/p3/cars` (a to-many's
/// objects), `/model`, `/history`, `/doctor`, `/changes`; each page's JSON twin is the same
/// path with `.json` (`/index.json` for `/`). What is no page of the store lives under `/-/`,
/// which no entity name can take; an entity named as a page (`model`) is at `/-/entity/model`.
public enum Route: Equatable, Sendable {
    case store
    case entity(String)
    case object(entity: String, key: Int64)
    case members(entity: String, key: Int64, relationship: String)
    case model, history, doctor, changes
    case transaction(Int64)
    /// `/generations`: every save the store's files hold; `/generations/w3`: what one did.
    case generations
    case generation(String)
    case login, events, stylesheet, script, favicon
    case blob(entity: String, key: Int64, attribute: String)
    case edit, save, discard, acknowledge, insert, delete
    /// A to-one cell's choices: objects of an entity matching typed text (JSON).
    case choices

    /// How a page is answered: as HTML, its JSON twin, or (a grid) CSV.
    public enum Form: Equatable, Sendable { case html, json, csv }

    /// The routes that change the pending context: POSTs only, and only with `--write`.
    static let changing: [Route] = [.edit, .save, .discard, .acknowledge, .insert, .delete]

    static let pageNames: Set<String> = ["model", "history", "doctor", "changes", "index", "generations"]

    /// The route and form a path names; nil for a path that names nothing (a 404), and an
    /// error for one that is malformed (a 400): a broken escape, `.` or `..`, a NUL.
    public static func parse(_ path: String) throws -> (Route, Form)? {
        guard path.hasPrefix("/") else { throw PathError.malformed }
        var segments: [String] = []
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let segment = QueryItems.decode(String(raw), plusIsSpace: false) else { throw PathError.malformed }
            guard segment != "..", segment != ".", !segment.contains("\u{0}"), !segment.contains("/") else { throw PathError.malformed }
            segments.append(segment)
        }
        if segments.last == "" { segments.removeLast() }
        var form = Form.html
        if var last = segments.last {
            for (suffix, kind) in [(".json", Form.json), (".csv", Form.csv)] where last.hasSuffix(suffix) && last.count > suffix.count {
                last.removeLast(suffix.count)
                form = kind
                segments[segments.count - 1] = last
            }
        }
        if segments.contains("") { return nil }
        switch segments.count {
        case 0: return form == .html ? (.store, .html) : nil
        default: break
        }
        if segments == ["favicon.ico"] { return (.favicon, .html) }
        if segments[0] == "-" {
            switch Array(segments.dropFirst()) {
            case ["login"]: return (.login, .html)
            case ["events"]: return (.events, .html)
            case ["static", "app.css"]: return (.stylesheet, .html)
            case ["static", "app.js"]: return (.script, .html)
            case ["edit"]: return (.edit, .html)
            case ["save"]: return (.save, .html)
            case ["discard"]: return (.discard, .html)
            case ["acknowledge"]: return (.acknowledge, .html)
            case ["insert"]: return (.insert, .html)
            case ["delete"]: return (.delete, .html)
            case ["choices"]: return (.choices, .json)
            case let rest where rest.count == 2 && rest[0] == "entity": return (.entity(rest[1]), form)
            case let rest where rest.count == 5 && rest[0] == "blob":
                guard let key = objectKey(rest[2]) else { return nil }
                return (.blob(entity: rest[1], key: key, attribute: rest[3]), form)
            default: return nil
            }
        }
        switch (segments.count, segments[0]) {
        case (1, "index") where form == .json: return (.store, .json)
        case (1, "model"): return (.model, form)
        case (1, "history"): return (.history, form)
        case (1, "doctor"): return (.doctor, form)
        case (1, "changes"): return (.changes, form)
        case (1, "generations"): return (.generations, form)
        case (2, "generations"):
            guard StoreTimeline.isPastToken(segments[1]) else { return nil }
            return (.generation(segments[1].lowercased()), form)
        case (2, "history"):
            guard let token = Int64(segments[1]) else { return nil }
            return (.transaction(token), form)
        case (1, _): return (.entity(segments[0]), form)
        case (2, _):
            guard let key = objectKey(segments[1]) else { return nil }
            return (.object(entity: segments[0], key: key), form)
        case (3, _):
            guard let key = objectKey(segments[1]) else { return nil }
            return (.members(entity: segments[0], key: key, relationship: segments[2]), form)
        default: return nil
        }
    }

    /// `p3` → 3.
    static func objectKey(_ segment: String) -> Int64? {
        guard segment.hasPrefix("p"), let key = Int64(segment.dropFirst()), key > 0 else { return nil }
        return key
    }

    enum PathError: Error { case malformed }
}

/// Paths to pages, made in one place: each segment percent-encoded.
public enum Paths {
    static func segment(_ text: String) -> String { QueryItems.encode(text) }

    public static let store = "/"
    public static let model = "/model"
    public static let history = "/history"
    public static let doctor = "/doctor"
    public static let changes = "/changes"
    public static let generations = "/generations"

    /// What one past save did (`/generations/w3`).
    public static func generation(_ token: String, form: Route.Form = .html) -> String { "/generations/" + segment(token) + suffix(form) }

    /// An object as it was at a past generation (`/Person/p3?generation=w3`).
    public static func object(_ entity: String, _ key: Int64, generation: String) -> String {
        object(entity, key) + QueryItems.string([("generation", generation)])
    }
    public static let stylesheet = "/-/static/app.css"
    public static let script = "/-/static/app.js"
    public static let events = "/-/events"
    public static let login = "/-/login"
    public static let edit = "/-/edit"
    public static let save = "/-/save"
    public static let discard = "/-/discard"
    public static let acknowledge = "/-/acknowledge"
    public static let insert = "/-/insert"
    public static let delete = "/-/delete"
    public static let choices = "/-/choices"

    public static func entity(_ name: String, query: [(String, String)] = [], form: Route.Form = .html) -> String {
        let base = Route.pageNames.contains(name) || name == "-" ? "/-/entity/" + segment(name) : "/" + segment(name)
        return base + suffix(form) + QueryItems.string(query)
    }

    public static func object(_ entity: String, _ key: Int64, form: Route.Form = .html) -> String {
        "/" + segment(entity) + "/p\(key)" + suffix(form)
    }

    /// An object ID as the command line writes it (`Person/p3`, or its URI) as a path; nil
    /// for a temporary ID, whose object has no page until it is saved.
    public static func object(_ id: String) -> String? {
        guard let parsed = ObjectID.parse(id), parsed.primaryKey > 0 else { return nil }
        return object(parsed.entityName, parsed.primaryKey)
    }

    public static func members(_ entity: String, _ key: Int64, _ relationship: String, query: [(String, String)] = [], form: Route.Form = .html) -> String {
        "/" + segment(entity) + "/p\(key)/" + segment(relationship) + suffix(form) + QueryItems.string(query)
    }

    public static func transaction(_ token: Int64, form: Route.Form = .html) -> String { "/history/\(token)" + suffix(form) }

    public static func blob(_ entity: String, _ key: Int64, _ attribute: String) -> String {
        "/-/blob/" + segment(entity) + "/p\(key)/" + segment(attribute) + "/data"
    }

    /// The JSON twin of the page at `path` (`/` → `/index.json`).
    public static func twin(_ path: String, query: String = "") -> String {
        (path == "/" ? "/index" : path) + ".json" + query
    }

    static func suffix(_ form: Route.Form) -> String {
        switch form {
        case .html: return ""
        case .json: return ".json"
        case .csv: return ".csv"
        }
    }
}
