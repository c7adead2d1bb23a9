import Foundation
@testable import ManagedStore
import XCTest

/// A power cut after a save: what the disk keeps is only what was synced. The save runs with a
/// recording `Disk` (the seam every file step of the core passes through); the test then
/// drops every file whose bytes or whose name in its folder were not synced after it was
/// written, as a power cut can, and the store must still name no missing file.
final class PowerCutTests: XCTestCase {
    private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    final class StepLog: @unchecked Sendable {
        private let lock = NSLock()
        private var steps: [Disk.Step] = []
        func append(_ step: Disk.Step) { lock.lock(); steps.append(step); lock.unlock() }
        var all: [Disk.Step] { lock.lock(); defer { lock.unlock() }; return steps }
    }

    /// The files a power cut at the end of `steps` keeps: created, then synced, then their
    /// folder synced (a rename's new name is kept once the folder is synced after it).
    static func survivors(of steps: [Disk.Step]) -> (kept: Set<String>, lost: Set<String>) {
        // Per file: when its name was made (created or renamed to), when its bytes were synced.
        var named: [String: (at: Int, synced: Int?)] = [:]
        for (index, step) in steps.enumerated() {
            switch step {
            case .created(let path): named[path] = (index, nil)
            case .synced(let path): named[path]?.synced = index
            case .renamed(let from, let to): named[to] = (index, named.removeValue(forKey: from)?.synced)
            case .removed(let path): named[path] = nil
            default: break
            }
        }
        var kept: Set<String> = [], lost: Set<String> = []
        for (path, file) in named {
            let folder = (path as NSString).deletingLastPathComponent
            guard let synced = file.synced else { lost.insert(path); continue }
            let after = max(file.at, synced)
            if steps[after...].contains(.syncedFolder(folder)) { kept.insert(path) } else { lost.insert(path) }
        }
        return (kept, lost)
    }

    func testAPowerCutAfterASaveLosesNoFileARowNames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-powercut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("People.sqlite").path
        try StoreCreator.create(at: path, model: XcdatamodelReader.model(atPath: packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path))

        let store = try PersistentStore(path: path)
        let coordinator = Coordinator(store: store)
        let log = StepLog()
        coordinator.disk = Disk(recorder: { log.append($0) })
        let context = Context(name: "main", coordinator: coordinator)
        for i in 0..<3 {
            let photo = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ i) }).base64EncodedString()
            _ = try context.insert("Person", values: [(key: "name", text: "p\(i)"), (key: "id", text: "E621E1F8-C36C-495A-93FC-0C247A3E6E5\(i)"),
                                                      (key: "photo", text: photo)])
        }
        try context.save()
        coordinator.close()

        let (kept, lost) = Self.survivors(of: log.all)
        XCTAssertEqual(kept.count, 3, "every photo's file survives: \(log.all)")
        XCTAssertEqual(lost, [], "files a power cut would lose: \(log.all)")
        // The cut itself: what was not synced is gone; every row's file must still be there.
        for path in lost { try? FileManager.default.removeItem(atPath: path) }
        let external = folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA")
        let reader = try PersistentStore(path: path)
        defer { reader.close() }
        let names = try reader.read { db in try ExternalReferences.names(db, store: reader) } ?? []
        XCTAssertEqual(names.count, 3)
        for name in names {
            XCTAssertTrue(FileManager.default.fileExists(atPath: external.appendingPathComponent(name).path), "\(name) lost in the cut")
        }
    }

    /// The model of a power cut catches a write that is not synced: the check can fail.
    func testTheCutDropsWhatWasNotSynced() {
        let steps: [Disk.Step] = [.created("/s/_E/A"), .synced("/s/_E/A"), .created("/s/_E/B"), .syncedFolder("/s/_E"), .created("/s/_E/C"), .synced("/s/_E/C")]
        let (kept, lost) = Self.survivors(of: steps)
        XCTAssertEqual(kept, ["/s/_E/A"])
        XCTAssertEqual(lost, ["/s/_E/B", "/s/_E/C"])
    }
}
