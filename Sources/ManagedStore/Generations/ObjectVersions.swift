import Foundation
import GRDB

/// One object across the generations its store's files hold: the generations in which it
/// was inserted, updated (its `Z_OPT` moved) or deleted, oldest first, each with the token to
/// read it at. The object's row is looked up by key in each generation, read in place: one
/// indexed lookup a generation, on a connection opened for it.
public enum ObjectVersions {
    public struct Version: Sendable, Equatable {
        public enum Change: String, Sendable { case present, inserted, updated, deleted }
        /// The generation it reads as this version from (for a deletion, the one it went in).
        public let token: String
        public let change: Change
        /// `Z_OPT` there (nil once deleted).
        public let version: Int64?
    }

    /// At most this many generations are looked at (the newest ones, when there are more).
    public static let generationsRead = 2000

    public static func read(_ objectID: ObjectID, store: PersistentStore) throws -> [Version] {
        let entity = try store.entity(objectID.entityName)
        let timeline = try StoreTimeline.read(path: store.path)
        let tokens = timeline.entries.filter(\.isReadable).map(\.token).suffix(generationsRead)
        let sql = "SELECT \(entity.versionColumn.map(SQL.identifier) ?? "0") FROM \(SQL.identifier(entity.table)) "
            + "WHERE \(SQL.identifier(entity.primaryKeyColumn)) = ?"
        var versions: [Version] = []
        var last: Int64?? = .none
        for token in tokens {
            try Cancellation.check()
            let file = try store.file.reading(generation: token, in: timeline)
            let queue = try StoreConnection.open(file, readonly: true)
            defer { try? StoreConnection.close(queue) }
            let now: Int64?
            do {
                now = try queue.read { db in try Int64.fetchOne(db, sql: sql, arguments: [objectID.primaryKey]) }
            } catch {
                throw StoreConnection.translate(error, file: file)
            }
            switch (last, now) {
            case (.none, let n?): versions.append(Version(token: token, change: .present, version: n))
            case (.some(nil), let n?): versions.append(Version(token: token, change: .inserted, version: n))
            case (.some(let l?), let n?) where l != n: versions.append(Version(token: token, change: .updated, version: n))
            case (.some(_?), nil): versions.append(Version(token: token, change: .deleted, version: nil))
            default: break
            }
            last = .some(now)
        }
        return versions
    }
}
