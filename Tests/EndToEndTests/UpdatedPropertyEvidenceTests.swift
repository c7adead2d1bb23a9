import Foundation
import GRDB
import ManagedStore
import XCTest

/// The `ZCOLUMNS` rule measured against Core Data's own rows. Whenever Core Data inserts an
/// object whose to-one relationship has an inverse, the same transaction records an update of
/// the related object whose bitmap sets the inverse's bit: each such case says which bit Core
/// Data gave that property. The counts below are exact, so a change to the rule that loses a
/// case (or wins one) fails here and must be written into the README's evidence table.
final class UpdatedPropertyEvidenceTests: XCTestCase {
    /// Per fixture: updated entity → (cases, cases the rule names).
    static let expected: [String: [String: (cases: Int, fitting: Int)]] = [
        "log2timeline_plaso/RMAdminStore-Local.sqlite": [
            "Usage": (744, 744), "UsageBlock": (150, 150), "UsageCategory": (48, 48), "UserDeviceState": (79, 79),
        ],
        "tkanarsky_osxphotos/Photos-14.6.0.sqlite": [
            "AdditionalAssetAttributes": (20, 20), "Asset": (63, 0), "FaceCrop": (4, 4), "Folder": (47, 47),
            "Person": (18, 3), "PhotosHighlight": (6, 0),
        ],
        "RhetTbull_PhotoScript/Photos.sqlite": ["Asset": (3, 3), "Folder": (9, 9)],
        "RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite": [
            "ICAccount": (16, 0), "ICFolder": (6, 0), "ICNote": (1, 1),
        ],
        "RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite": [
            "ICAccount": (24, 2), "ICFolder": (7, 0), "ICNote": (3, 0),
        ],
        // History with inserts and deletes only: no inverse update to check.
        "log2timeline_plaso/knowledgec-10.13.db": [:],
        "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite": [:],
    ]

    func testInverseUpdatesOfEveryHistoryFixtureFitTheRuleAsCounted() throws {
        for (fixture, expected) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let path = try Fixtures.copy(fixture, into: try Fixtures.temporaryDirectory(self)).path
            let store = try PersistentStore(path: path, options: .init(readonly: true))
            defer { store.close() }
            let measured = try store.reader.read { try Self.inverseCases(store, $0) }
            XCTAssertEqual(measured.keys.sorted(), expected.keys.sorted(), fixture)
            for (entity, counts) in expected {
                XCTAssertEqual(measured[entity]?.cases, counts.cases, "\(fixture): \(entity) cases")
                XCTAssertEqual(measured[entity]?.fitting, counts.fitting, "\(fixture): \(entity) cases the rule names")
            }
        }
    }

    /// The issue's measured writes, read back: Core Data's 390 `UsageTimedItem` updates of
    /// `totalTimeInSeconds` are `10`, and the inverse `installedApps` of `UserDeviceState` is
    /// `0002`; the bitmap is as long as the entity's properties need.
    func testScreenTimeBitsNameWhatCoreDataChanged() throws {
        let path = try Fixtures.copy("log2timeline_plaso/RMAdminStore-Local.sqlite", into: try Fixtures.temporaryDirectory(self)).path
        let store = try PersistentStore(path: path, options: .init(readonly: true))
        defer { store.close() }
        let timed = UpdatedPropertyBits(entity: "UsageTimedItem", model: store.model)
        XCTAssertEqual(timed.names, ["category", "bundleIdentifier", "domain", "totalTimeInSeconds", "usageTrusted"])
        XCTAssertEqual(timed.bitmap(["totalTimeInSeconds"]), [0x10])
        let device = UpdatedPropertyBits(entity: "UserDeviceState", model: store.model)
        XCTAssertEqual(device.bitmap(["installedApps"]), [0x00, 0x02])
        XCTAssertEqual(device.names([0x00, 0x02]), ["installedApps"])
    }

    /// cdinspect writes what Core Data wrote for the same change: a batch update of
    /// `totalTimeInSeconds` (Core Data's 390 rows: `10`) and a saved `userDeviceState=nil`,
    /// whose inverse update of the device state Core Data recorded as `0002`; every
    /// transaction carries a bundle ID, the process's name or the context's setting.
    func testWritesRecordTheBytesCoreDataWrote() throws {
        let store = try Fixtures.copy("log2timeline_plaso/RMAdminStore-Local.sqlite", into: try Fixtures.temporaryDirectory(self)).path
        let last = try SQLiteShell.read(store, "SELECT max(Z_PK) FROM ATRANSACTION")
        let app = try SQLiteShell.read(store, "SELECT Z_PK FROM ZINSTALLEDAPP WHERE ZUSERDEVICESTATE IS NOT NULL ORDER BY Z_PK LIMIT 1")
        let device = try SQLiteShell.read(store, "SELECT ZUSERDEVICESTATE FROM ZINSTALLEDAPP WHERE Z_PK = \(app)")
        let item = try SQLiteShell.read(store, "SELECT min(Z_PK) FROM ZUSAGETIMEDITEM")
        let r = try CLI.run([store, "-c", "batch-update UsageTimedItem --set totalTimeInSeconds=5 --where \"SELF == 'UsageTimedItem/p\(item)'\"",
                             "-c", "update InstalledApp/p\(app) userDeviceState=nil", "-c", "context set bundle com.example.tool", "-c", "save"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entity = { (name: String) in try SQLiteShell.read(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)'") }
        XCTAssertEqual(try SQLiteShell.read(store, """
            SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE ZTRANSACTIONID > \(last) AND ZCHANGETYPE = 1 AND ZENTITY = \(try entity("UsageTimedItem"))
            """), "10")
        XCTAssertEqual(try SQLiteShell.read(store, """
            SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE ZTRANSACTIONID > \(last) AND ZCHANGETYPE = 1 AND ZENTITY = \(try entity("UserDeviceState"))
              AND ZENTITYPK = \(device)
            """), "0002")
        XCTAssertEqual(try SQLiteShell.read(store, """
            SELECT group_concat(s.ZNAME, ' ') FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZBUNDLEIDTS WHERE t.Z_PK > \(last)
            """), "cdinspect com.example.tool")
    }

    /// Inverse cases per updated entity: for each inserted object's to-one with an inverse,
    /// the update of the object it points at in the same transaction.
    static func inverseCases(_ store: PersistentStore, _ db: Database) throws -> [String: (cases: Int, fitting: Int)] {
        var updates: [String: [[UInt8]]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT ZTRANSACTIONID, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 1") {
            guard let bitmap = row[3] as Data? else { continue }
            updates["\(row[0] as Int64? ?? 0)/\(row[1] as Int64? ?? 0)/\(row[2] as Int64? ?? 0)", default: []].append([UInt8](bitmap))
        }
        var result: [String: (cases: Int, fitting: Int)] = [:]
        var bits: [String: UpdatedPropertyBits] = [:]
        let inserts = try Row.fetchAll(db, sql: "SELECT ZTRANSACTIONID, ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZCHANGETYPE = 0")
        for insert in inserts {
            let (transaction, number, key): (Int64, Int64, Int64) = (insert[0] ?? 0, insert[1] ?? 0, insert[2] ?? 0)
            guard let entity = Int(exactly: number).flatMap({ store.mapping.entity(withID: $0) }) else { continue }
            for r in entity.relationships where !r.relationship.isToMany && !r.relationship.isTransient {
                guard let inverse = r.relationship.inverseName,
                      case .foreignKey(let column, let entityColumn) = r.storage,
                      let destination = store.mapping.entity(named: r.relationship.destinationEntityName) else { continue }
                let targetSQL = "SELECT \(column)" + (entityColumn.map { ", \($0)" } ?? "") + " FROM \(entity.table) WHERE Z_PK = ?"
                guard let target = try Row.fetchOne(db, sql: targetSQL, arguments: [key]), let targetKey = target[0] as Int64? else { continue }
                let candidates: [Int] = entityColumn != nil ? [target[1] as Int? ?? -1] : destination.entityIDs
                for targetEntity in candidates {
                    guard let updated = store.mapping.entity(withID: targetEntity),
                          let bitmaps = updates["\(transaction)/\(targetEntity)/\(targetKey)"] else { continue }
                    let rule = bits[updated.name] ?? UpdatedPropertyBits(entity: updated.name, model: store.model)
                    bits[updated.name] = rule
                    for bitmap in bitmaps {
                        result[updated.name, default: (0, 0)].cases += 1
                        if rule.names(bitmap).contains(inverse) { result[updated.name, default: (0, 0)].fitting += 1 }
                    }
                }
            }
        }
        return result
    }
}
