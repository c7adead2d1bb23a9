import Foundation
import GRDB
import ManagedStore
import XCTest

/// The `ZCOLUMNS` rule measured against Core Data's own rows. Whenever Core Data inserts an
/// object whose to-one relationship has an inverse, the same transaction records an update of
/// the related object whose bitmap sets the inverse's bit: each such case says which bit Core
/// Data gave that property. A case is left out when a later update of the inserted object
/// re-points that to-one (its current value is not what the insert set). The counts below
/// are exact, so a change to the rule that loses a case (or wins one) fails here and must be
/// written into the evidence table (docs in ARCHITECTURE.md's decisions).
final class UpdatedPropertyEvidenceTests: XCTestCase {
    struct Fit: Equatable, CustomStringConvertible {
        var cases = 0, fitting = 0
        /// Cases whose inverse is a to-one (a foreign key in group 1).
        var toOneCases = 0, toOneFitting = 0
        /// Cases whose inverse a migration renamed (it has a renaming identifier), counted
        /// apart: a migration rewrites stored bitmaps into the new model's numbering, and a
        /// renamed property's bit does not survive it.
        var renamedCases = 0, renamedFitting = 0
        var description: String {
            "\(fitting)/\(cases) (to-one \(toOneFitting)/\(toOneCases); renamed \(renamedFitting)/\(renamedCases))"
        }
    }

    /// Per fixture: the update rows whose length fits, of all, and per updated entity the fit.
    static let expected: [String: (lengths: (Int, Int), entities: [String: Fit])] = [
        "log2timeline_plaso/RMAdminStore-Local.sqlite": ((2816, 2816), [
            "Usage": Fit(cases: 744, fitting: 744), "UsageBlock": Fit(cases: 150, fitting: 150),
            "UsageCategory": Fit(cases: 48, fitting: 48), "UserDeviceState": Fit(cases: 79, fitting: 79),
        ]),
        // Asset's 19 renamed cases are PhotosHighlight's key assets: Asset's inverses
        // (highlightBeingKeyAssetPrivate and its month, year and day-group kin) were renamed
        // from `…KeyAsset` by a migration, and no history row of either object names them.
        "tkanarsky_osxphotos/Photos-14.6.0.sqlite": ((1658, 1658), [
            "AdditionalAssetAttributes": Fit(cases: 20, fitting: 20, toOneCases: 20, toOneFitting: 20),
            "Asset": Fit(cases: 33, fitting: 33, renamedCases: 19, renamedFitting: 0),
            "FaceCrop": Fit(cases: 4, fitting: 4, toOneCases: 4, toOneFitting: 4),
            "Folder": Fit(cases: 2, fitting: 2),
            "Person": Fit(cases: 17, fitting: 17, toOneCases: 2, toOneFitting: 2),
            "PhotosHighlight": Fit(cases: 6, fitting: 6),
        ]),
        // Renamed too, and recorded after the rename: their bits are there.
        "RhetTbull_PhotoScript/Photos.sqlite": ((161, 161), [
            "Asset": Fit(renamedCases: 3, renamedFitting: 3),
        ]),
        // ICFolder's to-manys are the one family whose dictionary order the emulation misses.
        "RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite": ((251, 251), [
            "ICAccount": Fit(cases: 16, fitting: 16, toOneCases: 1, toOneFitting: 1), "ICFolder": Fit(cases: 6, fitting: 0),
            "ICNote": Fit(cases: 1, fitting: 1),
        ]),
        "RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite": ((174, 174), [
            "ICAccount": Fit(cases: 24, fitting: 24, toOneCases: 1, toOneFitting: 1), "ICFolder": Fit(cases: 7, fitting: 7),
            "ICNote": Fit(cases: 3, fitting: 3),
        ]),
        "thierryH91200_PegaseUIData_v2/SampleManager.store": ((742, 742), [
            "EntityAccount": Fit(cases: 391, fitting: 391, toOneCases: 16, toOneFitting: 16),
            "EntityCategory": Fit(cases: 278, fitting: 278, toOneCases: 4, toOneFitting: 4),
        ]),
        // History with inserts and deletes only: no inverse update to check.
        "log2timeline_plaso/knowledgec-10.13.db": ((28, 28), [:]),
        "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite": ((0, 0), [:]),
        "Hamanto-Studio_heritg/swiftdata-1.0.0.store": ((0, 0), [:]),
    ]

    func testInverseUpdatesOfEveryHistoryFixtureFitTheRuleAsCounted() throws {
        for (fixture, expected) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let path = try Fixtures.copy(fixture, into: try Fixtures.temporaryDirectory(self)).path
            let store = try PersistentStore(path: path, options: .init(readonly: true))
            defer { store.close() }
            let (lengths, measured) = try store.reader.read { (try Self.lengthFits(store, $0), try Self.inverseCases(store, $0)) }
            XCTAssertEqual(lengths.fitting, expected.lengths.0, "\(fixture): update rows whose length fits")
            XCTAssertEqual(lengths.rows, expected.lengths.1, "\(fixture): update rows")
            XCTAssertEqual(measured.filter { $0.value.cases + $0.value.renamedCases > 0 }.keys.sorted(),
                           expected.entities.filter { $0.value.cases + $0.value.renamedCases > 0 }.keys.sorted(), fixture)
            for (entity, fit) in expected.entities where fit.cases + fit.renamedCases > 0 {
                XCTAssertEqual(measured[entity], fit, "\(fixture): \(entity)")
            }
        }
    }

    /// Where the store's own history numbers an entity's to-manys otherwise than the
    /// computed order (Notes' ICFolder on macOS 12), the history's order is used, and the
    /// history listing says so once; no other fixture's order is overridden.
    func testTheHistorysOwnOrderIsUsedWhereItContradictsTheComputedOne() throws {
        for (fixture, learnedEntities) in [("RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite", ["ICFolder"]),
                                           ("RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite", []),
                                           ("tkanarsky_osxphotos/Photos-14.6.0.sqlite", []),
                                           ("thierryH91200_PegaseUIData_v2/SampleManager.store", [])] {
            let path = try Fixtures.copy(fixture, into: try Fixtures.temporaryDirectory(self)).path
            let store = try PersistentStore(path: path, options: .init(readonly: true))
            defer { store.close() }
            let (learned, cases) = try store.reader.read { db in
                let learned = store.learnedToManyOrder(db)
                return (learned, try Self.inverseCases(store, db, learned: learned))
            }
            XCTAssertEqual(learned.orders.keys.sorted(), learnedEntities, fixture)
            for entity in learnedEntities {
                XCTAssertEqual(cases[entity]?.fitting, cases[entity]?.cases, "\(fixture): \(entity) under the history's order")
            }
            let listing = try CLI.run(["history", path, "--changes", "--limit", "1"])
            XCTAssertEqual(listing.stderr.split(separator: "\n").count, learnedEntities.count, "\(fixture): \(listing.stderr)")
            for entity in learnedEntities {
                XCTAssertTrue(listing.stderr.contains("numbers \(entity)'s to-many relationships in another order"), listing.stderr)
            }
        }
    }

    /// Update rows whose bitmap is as long as the SQL entity needs, of all update rows.
    static func lengthFits(_ store: PersistentStore, _ db: Database) throws -> (fitting: Int, rows: Int) {
        var bits: [Int: UpdatedPropertyBits] = [:]
        var fitting = 0, rows = 0
        for row in try Row.fetchAll(db, sql: "SELECT ZENTITY, length(ZCOLUMNS) FROM ACHANGE WHERE ZCHANGETYPE = 1 AND ZCOLUMNS IS NOT NULL") {
            guard let number = row[0] as Int?, let entity = store.mapping.entity(withID: number) else { continue }
            let rule = bits[number] ?? UpdatedPropertyBits(entity: entity.name, model: store.model)
            bits[number] = rule
            rows += 1
            if row[1] as Int? == rule.byteCount { fitting += 1 }
        }
        return (fitting, rows)
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

    /// On a SwiftData store, cdinspect's history bytes are the ones SwiftData's Core Data
    /// wrote for the same changes in that store: `bankStatement` of a transaction `0800`
    /// (96 of Core Data's rows), `status` `2000` (38 rows), a sub-operation's `libelle` `10`
    /// (9 rows); a batch update and a save.
    func testWritesIntoASwiftDataStoreRecordTheBytesCoreDataWrote() throws {
        let store = try Fixtures.copy("thierryH91200_PegaseUIData_v2/SampleManager.store", into: try Fixtures.temporaryDirectory(self)).path
        let last = try SQLiteShell.read(store, "SELECT max(Z_PK) FROM ATRANSACTION")
        let transaction = try SQLiteShell.read(store, "SELECT min(Z_PK) FROM ZENTITYTRANSACTION")
        let withStatus = try SQLiteShell.read(store, "SELECT min(Z_PK) FROM ZENTITYTRANSACTION WHERE ZSTATUS IS NOT NULL AND Z_PK != \(transaction)")
        let operation = try SQLiteShell.read(store, "SELECT min(Z_PK) FROM ZENTITYSOUSOPERATION")
        let r = try CLI.run([store,
                             "-c", "batch-update EntityTransaction --set bankStatement=bankStatement+1 --where \"SELF == 'EntityTransaction/p\(transaction)'\"",
                             "-c", "update EntitySousOperation/p\(operation) libelle=\"from cdinspect\"",
                             "-c", "update EntityTransaction/p\(withStatus) status=nil", "-c", "save"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let changes = try SQLiteShell.read(store, """
            SELECT p.Z_NAME || ' ' || c.ZENTITYPK || ' ' || hex(c.ZCOLUMNS) FROM ACHANGE c JOIN Z_PRIMARYKEY p ON p.Z_ENT = c.ZENTITY
            WHERE c.ZTRANSACTIONID > \(last) AND c.ZCHANGETYPE = 1 ORDER BY c.Z_PK
            """)
        XCTAssertEqual(changes, """
            EntityTransaction \(transaction) 0800
            EntitySousOperation \(operation) 10
            EntityTransaction \(withStatus) 2000
            """)
    }

    /// Inverse cases per updated entity: for each inserted object's to-one with an inverse,
    /// the update of the object it points at in the same transaction, unless a later update
    /// of the inserted object re-pointed that to-one.
    static func inverseCases(_ store: PersistentStore, _ db: Database, learned: LearnedToManyOrder = .none) throws -> [String: Fit] {
        var updates: [String: [[UInt8]]] = [:]
        var laterUpdates: [String: [(transaction: Int64, bitmap: [UInt8])]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT ZTRANSACTIONID, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 1") {
            guard let bitmap = row[3] as Data? else { continue }
            let (transaction, entity, key): (Int64, Int64, Int64) = (row[0] ?? 0, row[1] ?? 0, row[2] ?? 0)
            updates["\(transaction)/\(entity)/\(key)", default: []].append([UInt8](bitmap))
            laterUpdates["\(entity)/\(key)", default: []].append((transaction, [UInt8](bitmap)))
        }
        var result: [String: Fit] = [:]
        var bits: [String: UpdatedPropertyBits] = [:]
        func rule(_ entity: String) -> UpdatedPropertyBits {
            let found = bits[entity] ?? UpdatedPropertyBits(entity: entity, model: store.model, learned: learned)
            bits[entity] = found
            return found
        }
        let inserts = try Row.fetchAll(db, sql: "SELECT ZTRANSACTIONID, ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZCHANGETYPE = 0")
        for insert in inserts {
            let (transaction, number, key): (Int64, Int64, Int64) = (insert[0] ?? 0, insert[1] ?? 0, insert[2] ?? 0)
            guard let entity = Int(exactly: number).flatMap({ store.mapping.entity(withID: $0) }) else { continue }
            for r in entity.relationships where !r.relationship.isToMany && !r.relationship.isTransient {
                guard let inverse = r.relationship.inverseName,
                      case .foreignKey(let column, let entityColumn) = r.storage,
                      let destination = store.mapping.entity(named: r.relationship.destinationEntityName) else { continue }
                let repointed = (laterUpdates["\(number)/\(key)"] ?? []).contains { later in
                    later.transaction > transaction && rule(entity.name).names(later.bitmap).contains(r.relationship.name)
                }
                if repointed { continue }
                let targetSQL = "SELECT \(column)" + (entityColumn.map { ", \($0)" } ?? "") + " FROM \(entity.table) WHERE Z_PK = ?"
                guard let target = try Row.fetchOne(db, sql: targetSQL, arguments: [key]), let targetKey = target[0] as Int64? else { continue }
                let candidates: [Int] = entityColumn != nil ? [target[1] as Int? ?? -1] : destination.entityIDs
                for targetEntity in candidates {
                    guard let updated = store.mapping.entity(withID: targetEntity),
                          let bitmaps = updates["\(transaction)/\(targetEntity)/\(targetKey)"] else { continue }
                    let toOne = updated.relationship(inverse).map { !$0.relationship.isToMany } ?? false
                    let renamed = updated.relationship(inverse)?.relationship.renamingIdentifier != nil
                    for bitmap in bitmaps {
                        let fits = rule(updated.name).names(bitmap).contains(inverse)
                        if renamed {
                            result[updated.name, default: Fit()].renamedCases += 1
                            if fits { result[updated.name, default: Fit()].renamedFitting += 1 }
                            continue
                        }
                        result[updated.name, default: Fit()].cases += 1
                        if fits { result[updated.name, default: Fit()].fitting += 1 }
                        if toOne {
                            result[updated.name, default: Fit()].toOneCases += 1
                            if fits { result[updated.name, default: Fit()].toOneFitting += 1 }
                        }
                    }
                }
            }
        }
        return result
    }
}
