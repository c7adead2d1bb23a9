import Foundation
import Inspector
import ManagedStore

/// One page being made: the request, a store of the pool to read, the frame. Each page is a
/// value (what `--format json` prints for the commands it runs, put together) and the HTML
/// made from that value; its JSON twin is the value itself, written by the same JSON writer
/// the command line uses.
struct PageRequest {
    let store: PersistentStore
    let request: WebRequest
    let form: Route.Form
    let layout: Layout
    let site: Site

    func respond(_ route: Route) throws -> WebResponse {
        switch route {
        case .store: return try StorePage(page: self).response()
        case .entity(let name): return try EntityPage(page: self, entityName: name).response()
        case .object(let entity, let key): return try ObjectPage(page: self, entityName: entity, key: key).response()
        case .members(let entity, let key, let relationship):
            return try MembersPage(page: self, entityName: entity, key: key, relationship: relationship).response()
        case .model: return try ModelPage(page: self).response()
        case .history: return try HistoryPage(page: self).response()
        case .transaction(let token): return try TransactionPage(page: self, token: token).response()
        case .doctor: return try DoctorPage(page: self).response()
        case .changes: return try ChangesPage(page: self).response()
        case .generations: return try GenerationsPage(page: self).response()
        case .generation(let token): return try GenerationPage(page: self, token: token).response()
        case .blob(let entity, let key, let attribute): return try BlobDownload(page: self, entityName: entity, key: key, key2: attribute).response()
        default: throw PageNotFound(description: "No page here.")
        }
    }

    /// The past generation the page reads (`?generation=w3`), or nil for the newest state.
    var pastGeneration: String? { store.options.generation }

    /// Runs a command of the session language on the page's store.
    func run(_ words: [String], rowLimit: Int? = nil) throws -> CommandAnswer {
        try CommandAnswer.run(words, store: store, rowLimit: rowLimit)
    }

    /// The page as HTML, or its JSON twin (`value`), as the request's path asks. A CSV form is
    /// a grid's alone; elsewhere it names nothing.
    func answer(title: String, crumbs: [(String, String?)], value: OutputValue, status: Int = 200,
                attributes: [(String, String)] = [], body: () throws -> HTML) throws -> WebResponse {
        switch form {
        case .json:
            // Bounded as the pages are: a 20 MB text is cut, and the twin says how many were.
            var cut = 0
            var bounded = Self.bounded(value, &cut)
            if cut > 0, case .object(let pairs) = bounded { bounded = .object(pairs + [("valuesCut", .integer(Int64(cut)))]) }
            return .json(bounded.jsonText + "\n", status: status)
        case .csv: throw PageNotFound(description: "This page has no CSV form; a grid's has (/Entity.csv).")
        case .html:
            return .html(layout.page(title: title, crumbs: crumbs, twin: Paths.twin(request.path, query: queryString), body: try body(),
                                     attributes: attributes), status: status)
        }
    }

    /// A JSON twin's text values are cut at this many characters (bytes at as many bytes).
    static let twinValueLimit = 256 << 10

    /// `value` with every text and bytes past `twinValueLimit` cut, counted in `cut`.
    static func bounded(_ value: OutputValue, _ cut: inout Int) -> OutputValue {
        switch value {
        case .string(let s) where s.utf8.count > twinValueLimit:
            cut += 1
            return .string(String(s.prefix(twinValueLimit)) + "…")
        case .data(let bytes) where bytes.count > twinValueLimit:
            cut += 1
            return .data(Array(bytes.prefix(twinValueLimit)))
        case .json(let bytes) where bytes.count > twinValueLimit:
            cut += 1
            return .string(String(decoding: bytes.prefix(twinValueLimit), as: UTF8.self) + "…")
        case .array(let items): return .array(items.map { bounded($0, &cut) })
        case .object(let pairs): return .object(pairs.map { ($0.0, bounded($0.1, &cut)) })
        default: return value
        }
    }

    /// The request's query, as it came, for the JSON twin's link.
    var queryString: String {
        QueryItems.string(request.query.map { ($0.name, $0.value) })
    }

    /// The store's crumb, first in every trail.
    var storeCrumb: (String, String?) { (site.options.storePath.split(separator: "/").last.map(String.init) ?? "store", Paths.store) }

    /// The entity a path names, by its exact name (or the store's case-insensitive match, for
    /// a store without a model); an unknown one is a 404 with the nearest name.
    func entity(_ name: String) throws -> EntityMapping {
        try store.entity(name)
    }
}

extension Array where Element == (String, OutputValue) {
    /// An object's pairs with `key` set (replaced where it is, else added last).
    func setting(_ key: String, _ value: OutputValue) -> [(String, OutputValue)] {
        var pairs = self
        if let i = pairs.firstIndex(where: { $0.0 == key }) { pairs[i].1 = value } else { pairs.append((key, value)) }
        return pairs
    }
}
