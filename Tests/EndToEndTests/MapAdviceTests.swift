import Foundation
import GRDB
import ManagedStore
import XCTest

/// The store's memory map asks Linux for 2 MiB pieces of page cache where it reads the file
/// from disk (`WindowedMappingVFS.adviseLargePages`), over the map and nothing past it.
final class MapAdviceTests: ExampleStoreTestCase {
    func testTheStoresMapIsAdvisedForLargePagesAndNothingElseIs() throws {
        #if os(Linux)
        let opened = try PersistentStore(path: store, options: .init(readonly: true))
        defer { opened.close() }
        // The store is read through the map, which stays while the connection is open.
        let people = try opened.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ZPERSON") }
        XCTAssertEqual(people, 50)
        let regions = try Self.mappedRegions()

        let path = URL(fileURLWithPath: store).resolvingSymlinksInPath().path
        let storeMaps = regions.filter { $0.path == path }
        XCTAssertFalse(storeMaps.isEmpty, "the store is not mapped")
        // Linux names the advice `hg` among a region's flags.
        for region in storeMaps { XCTAssertTrue(region.flags.contains("hg"), "\(region.range): \(region.flags)") }
        // The advice stops at the map's end: every region given it is a read-only shared map
        // of a file, as SQLite's maps are (other tests running beside this one open stores
        // of their own), never the heap, a stack or a library beside the map.
        let others = regions.filter {
            $0.flags.contains("hg") && !($0.path.hasPrefix("/") && $0.flags.contains("ms") && !$0.flags.contains("wr")
                && !$0.flags.contains("ex"))
        }
        XCTAssertTrue(others.isEmpty, others.map { "\($0.range) \($0.path) \($0.flags)" }.joined(separator: "\n"))
        #else
        throw XCTSkip("the advice is Linux's; elsewhere the main file is read without the map")
        #endif
    }

    struct Region {
        let range: String
        let path: String
        let flags: [String]
    }

    /// This process's memory regions, from /proc/self/smaps: each one's address range, the
    /// file it maps (empty for none) and its `VmFlags`.
    static func mappedRegions() throws -> [Region] {
        // Read to its end: the file reports a size of 0, and a read of that size stops early.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? handle.close() }
        var data = Data()
        while let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty { data.append(chunk) }
        let text = String(decoding: data, as: UTF8.self)
        var regions: [Region] = []
        var range = "", path = ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                range = String(first)
                path = fields.count >= 6 ? fields[5...].joined(separator: " ") : ""
            } else if fields.first == "VmFlags:" {
                regions.append(Region(range: range, path: path, flags: fields.dropFirst().map(String.init)))
            }
        }
        return regions
    }
}
