/// Everything `recover`'s carver can do with one page, for the fuzz target and the fail cases
/// that replay its finds: the page's free space scanned and its freed cells rebuilt as a live
/// leaf's, its cells read as a free page's, the whole page scanned as a freelist trunk's, as
/// rows of one of a few table shapes; and a declaration read from the page's text, as a
/// dropped table's is.
public enum CarvingReading {
    static let shapes: [TableShape] = [
        TableShape(name: "users", root: 2, columns: ["id", "second", "third", "fourth", "fifth"],
                   affinities: [.integer, .integer, .integer, .integer, .integer], rowidColumn: nil, entityNumbers: nil),
        TableShape(name: "ZPERSON", root: 2, columns: ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZSCORE", "ZPHOTO"],
                   affinities: [.integer, .integer, .integer, .text, .real, .blob], rowidColumn: 0, entityNumbers: [1, 2, 3]),
        DroppedTables.schemaShape,
        TableShape(name: "t", root: 2, columns: ["b"], affinities: [.blob], rowidColumn: nil, entityNumbers: nil),
    ]

    /// How many records were carved (so that nothing is optimised away).
    @discardableResult
    public static func carveAll(_ page: [UInt8], shape choice: Int, pageNumber: UInt32) -> Int {
        let shape = shapes[choice % shapes.count]
        var seen = 0
        page.withUnsafeBytes { bytes in
            let usable = bytes.count
            guard usable >= 480 else { return }
            if let leaf = BTreePage(bytes, pageNumber: pageNumber, usableSize: usable), leaf.kind == .tableLeaf {
                seen += CarvedRecords.cells(bytes, leaf: leaf, shape: shape).count
                CarvedRecords.freeSpace(bytes, leaf: leaf, shape: shape, usable: usable) { _, _ in seen += 1 }
            }
            CellCarver.scan(bytes, region: 0..<usable, shape: shape, usable: usable) { _ in seen += 1 }
        }
        // A declaration the page's bytes spell, run alone in an empty in-memory database.
        if choice % shapes.count == 2, let text = String(validating: page.prefix(512), as: UTF8.self),
           DroppedTables.shape(name: "dropped", root: 2, sql: text) != nil {
            seen += 1
        }
        return seen
    }
}
