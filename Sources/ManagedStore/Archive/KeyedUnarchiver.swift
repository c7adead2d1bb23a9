import Foundation

/// Reads a transformable's bytes the way `NSKeyedUnarchiver` (and so
/// `NSSecureUnarchiveFromDataTransformer`) would, into `ArchivedValue`s.
///
/// `NSKeyedUnarchiver` cannot be used: an app's classes are not on this machine, and on
/// Linux Foundation does not decode UIKit/AppKit archives at all. Foundation's own types are
/// decoded by their archived keys; any other class keeps its name and fields. Archives are
/// store content, so they are read defensively: cycles become `.cycle`, and a graph whose
/// shared references would expand past `nodeLimit` values is refused rather than expanded.
public struct KeyedUnarchiver {
    public enum Error: Swift.Error, CustomStringConvertible, Equatable {
        /// The bytes are not a binary property list: a custom transformer's own format.
        case notAnArchive
        case malformed(String)
        case tooLarge(Int)

        public var description: String {
            switch self {
            case .notAnArchive: return "not a property list or keyed archive"
            case .malformed(let why): return "damaged keyed archive: \(why)"
            case .tooLarge(let limit): return "the archive expands to more than \(limit) values"
            }
        }
    }

    public static let nodeLimit = 1_000_000

    /// How many values an archive of `objects` objects may expand to: sixteen times its own
    /// objects (ordinary archives share little: a class description, an equal string), at
    /// least 10,000, at most `nodeLimit`. An archive whose references would expand past it is
    /// refused (`tooLarge`).
    static func expansionLimit(objects: Int) -> Int {
        min(nodeLimit, max(10_000, objects.multipliedReportingOverflow(by: 16).overflow ? nodeLimit : objects * 16))
    }

    /// The value the bytes hold: a keyed archive's root object, or a plain property list.
    public static func value(of bytes: [UInt8]) throws -> ArchivedValue {
        try decode(bytes).value
    }

    /// The classes the archive holds instances of (what a secure unarchiver must allow);
    /// empty for a plain property list. The graph is decoded too, so a damaged one throws.
    public static func classNames(in bytes: [UInt8]) throws -> Set<String> {
        try decode(bytes).classNames
    }

    /// The value and the archived classes, from one read of the bytes.
    public static func decode(_ bytes: [UInt8]) throws -> (value: ArchivedValue, classNames: Set<String>) {
        switch try contents(of: bytes) {
        case .plain(let plist):
            return (try plainValue(plist), [])
        case .archive(let archive):
            // An archive is a graph: an object referenced from many places is one object. The
            // value shown expands it at each place, so a few bytes of references (six to the
            // next level, eight levels deep) would expand to millions of values and take
            // seconds per row. The expansion is measured first, each object once, in time
            // proportional to the archive; one past the limit is refused without expanding.
            let limit = expansionLimit(objects: archive.objects.count)
            let expanded = ExpansionMeasure(archive).size(of: archive.root, limit: limit)
            if expanded > limit { throw Error.tooLarge(limit) }
            var reader = KeyedUnarchiver(archive: archive)
            let value = try reader.decode(archive.root)
            var names: Set<String> = []
            for index in archive.objects.indices where archive.objects[index]["$class"] != nil {
                if let name = archive.className(of: index) { names.insert(name) }
            }
            return (value, names)
        }
    }

    private enum Contents {
        case plain(PropertyListValue)
        case archive(KeyedArchive)
    }

    private static func contents(of bytes: [UInt8]) throws -> Contents {
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyList.decode(bytes)
        } catch BinaryPropertyList.Error.notABinaryPropertyList {
            throw Error.notAnArchive
        } catch {
            throw Error.malformed(String(describing: error))
        }
        guard plist["$archiver"] != nil || plist["$objects"] != nil else { return .plain(plist) }
        do { return .archive(try KeyedArchive(plist)) } catch { throw Error.malformed(String(describing: error)) }
    }

    private let archive: KeyedArchive
    private var path: Set<Int> = []
    private var nodes = 0

    private init(archive: KeyedArchive) {
        self.archive = archive
    }

    private static func plainValue(_ plist: PropertyListValue) throws -> ArchivedValue {
        var count = 0
        func convert(_ v: PropertyListValue) throws -> ArchivedValue {
            count += 1
            if count > nodeLimit { throw Error.tooLarge(nodeLimit) }
            switch v {
            case .uid(let u): return .integer(Int64(u))
            case .array(let items): return .array(try items.map(convert))
            case .dictionary(let pairs):
                return .dictionary(try pairs.map { .init(keyText(try convert($0.key)), try convert($0.value)) })
            default: return ArchivedValue(scalar: v) ?? .null
            }
        }
        return try convert(plist)
    }

    /// A dictionary key as text: strings as they are, anything else as its JSON-ish text.
    static func keyText(_ value: ArchivedValue) -> String {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        default: return String(describing: value)
        }
    }

    // MARK: Objects

    /// How deep objects may nest: Foundation values rarely go past a handful of levels, and
    /// a chain of references in a damaged archive must not exhaust the stack.
    static let depthLimit = 200

    private mutating func decode(_ index: Int) throws -> ArchivedValue {
        nodes += 1
        if nodes > Self.nodeLimit { throw Error.tooLarge(Self.nodeLimit) }
        guard archive.objects.indices.contains(index) else { return .null }
        guard path.count < Self.depthLimit else { throw Error.malformed("objects nest deeper than \(Self.depthLimit) levels") }
        let object = archive.objects[index]
        if let scalar = ArchivedValue(scalar: object) { return scalar }
        // Whatever can hold others (an object, an array, a reference stored as an object of
        // its own) is entered once per path, so a loop ends in `.cycle`.
        guard path.insert(index).inserted else { return .cycle(index) }
        defer { path.remove(index) }
        switch object {
        case .uid: return try reference(object)
        case .array(let items): return .array(try items.map { try inline($0) })
        default: break
        }
        let className = archive.className(of: index) ?? ""
        if let value = try foundationValue(index, className: className) { return value }
        return .object(className: className.isEmpty ? "?" : className, fields: try fields(of: index))
    }

    /// A field's value: a reference is followed, an inline value converted.
    private mutating func inline(_ raw: PropertyListValue) throws -> ArchivedValue {
        switch raw {
        case .uid: return try reference(raw)
        case .array(let items): return .array(try items.map { try inline($0) })
        case .dictionary(let pairs):
            return .dictionary(try pairs.map { .init(Self.keyText(try inline($0.key)), try inline($0.value)) })
        default: return ArchivedValue(scalar: raw) ?? .null
        }
    }

    private mutating func reference(_ raw: PropertyListValue) throws -> ArchivedValue {
        guard let index = archive.uid(raw) else { return .null }
        return try decode(index)
    }

    private mutating func field(_ index: Int, _ key: String) throws -> ArchivedValue? {
        guard let raw = archive.objects[index][key] else { return nil }
        return try inline(raw)
    }

    private mutating func fields(of index: Int) throws -> [ArchivedValue.Entry] {
        guard case .dictionary(let pairs) = archive.objects[index] else { return [] }
        var result: [ArchivedValue.Entry] = []
        for (key, value) in pairs {
            guard let key = key.stringValue, key != "$class" else { continue }
            result.append(.init(key, try inline(value)))
        }
        return result.sorted { $0.key < $1.key }
    }

    private mutating func members(_ index: Int, _ key: String = "NS.objects") throws -> [ArchivedValue] {
        guard case .array(let refs)? = archive.objects[index][key] else { return [] }
        return try refs.map { try inline($0) }
    }

    /// Foundation's archivable value types, by the keys their `encode(with:)` writes;
    /// nil when the class is not one of them (or does not carry the expected keys).
    private mutating func foundationValue(_ index: Int, className: String) throws -> ArchivedValue? {
        let object = archive.objects[index]
        switch className {
        case "NSString", "NSMutableString":
            if let s = try field(index, "NS.string") { return s }
            if case .data(let bytes)? = object["NS.bytes"] { return .string(String(decoding: bytes, as: UTF8.self)) }
            return nil
        case "NSNull":
            return .null
        case "NSNumber":
            return try field(index, "NS.number") ?? field(index, "NS.intval") ?? field(index, "NS.dblval")
        case "NSDate":
            if let t = object["NS.time"], case .real(let d) = t { return .date(d) }
            if let t = object["NS.time"]?.integerValue { return .date(Double(t)) }
            return nil
        case "NSData", "NSMutableData":
            if case .data(let d)? = object["NS.data"] { return .data(d) }
            return try field(index, "NS.data")
        case "NSUUID":
            guard case .data(let b)? = object["NS.uuidbytes"], let uuid = UUID(bytes: b) else { return nil }
            return .string(uuid.uuidString)
        case "NSURL":
            guard case .string(let relative)? = try field(index, "NS.relative") else { return nil }
            if case .string(let base)? = try field(index, "NS.base"), let url = URL(string: relative, relativeTo: URL(string: base)) {
                return .string(url.absoluteString)
            }
            return .string(relative)
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet", "NSCountedSet":
            return .array(try members(index))
        case "NSDictionary", "NSMutableDictionary":
            let keys = try members(index, "NS.keys")
            let values = try members(index, "NS.objects")
            return .dictionary(zip(keys, values).map { .init(Self.keyText($0), $1) })
        case "NSAttributedString", "NSMutableAttributedString", "NSConcreteAttributedString", "NSConcreteMutableAttributedString":
            guard let text = try field(index, "NSString") else { return nil }
            var entries: [ArchivedValue.Entry] = [.init("string", text)]
            let names = try attributeNames(index)
            if !names.isEmpty { entries.append(.init("attributes", .array(names.map(ArchivedValue.string)))) }
            return .dictionary(entries)
        case "NSValue":
            return try geometry(index)
        case "UIColor", "NSColor", "UIDeviceRGBColor", "UIDeviceWhiteColor", "UICachedDeviceRGBColor", "UICachedDeviceWhiteColor":
            return colour(index)
        case "NSLocale":
            return try field(index, "NS.identifier")
        case "NSTimeZone", "__NSTimeZone":
            return try field(index, "NS.name")
        default:
            return nil
        }
    }

    /// The attribute names of an attributed string (`NSAttributes` holds one dictionary, or
    /// an array of them for runs), sorted, each once.
    private mutating func attributeNames(_ index: Int) throws -> [String] {
        guard let attributes = try field(index, "NSAttributes") else { return [] }
        var names: Set<String> = []
        func collect(_ v: ArchivedValue) {
            switch v {
            case .dictionary(let entries): entries.forEach { names.insert($0.key) }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(attributes)
        return names.sorted()
    }

    /// `NSValue` of a point, size, rect or range: the named numbers.
    private mutating func geometry(_ index: Int) throws -> ArchivedValue? {
        let object = archive.objects[index]
        if let location = object["NS.rangeval.location"]?.integerValue, let length = object["NS.rangeval.length"]?.integerValue {
            return .dictionary([.init("location", .integer(location)), .init("length", .integer(length))])
        }
        let shapes: [(key: String, names: [String])] = [
            ("NS.pointval", ["x", "y"]), ("NS.sizeval", ["width", "height"]), ("NS.rectval", ["x", "y", "width", "height"]),
            ("NS.edgeinsetsval", ["top", "left", "bottom", "right"]),
        ]
        for shape in shapes {
            guard case .string(let text)? = try field(index, shape.key) else { continue }
            let numbers = Self.numbers(in: text)
            guard numbers.count == shape.names.count else { continue }
            return .dictionary(zip(shape.names, numbers).map { .init($0, .real($1)) })
        }
        return nil
    }

    /// UIKit archives colours as `UIRed`…`UIAlpha` (or `UIWhite`); AppKit as `NSRGB` /
    /// `NSWhite` text ("0.1 0.2 0.3 1"). Both become named components.
    private func colour(_ index: Int) -> ArchivedValue? {
        let object = archive.objects[index]
        func number(_ key: String) -> Double? {
            switch object[key] {
            case .real(let d)?: return d
            case .integer(let i)?: return Double(i)
            default: return nil
            }
        }
        if let red = number("UIRed"), let green = number("UIGreen"), let blue = number("UIBlue") {
            return .dictionary([.init("red", .real(red)), .init("green", .real(green)), .init("blue", .real(blue)),
                                .init("alpha", .real(number("UIAlpha") ?? 1))])
        }
        if let white = number("UIWhite") {
            return .dictionary([.init("white", .real(white)), .init("alpha", .real(number("UIAlpha") ?? 1))])
        }
        if case .data(let bytes)? = object["NSRGB"] {
            let c = Self.numbers(in: String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
            if c.count >= 3 {
                return .dictionary([.init("red", .real(c[0])), .init("green", .real(c[1])), .init("blue", .real(c[2])),
                                    .init("alpha", .real(c.count > 3 ? c[3] : 1))])
            }
        }
        if case .data(let bytes)? = object["NSWhite"] {
            let c = Self.numbers(in: String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
            if let white = c.first { return .dictionary([.init("white", .real(white)), .init("alpha", .real(c.count > 1 ? c[1] : 1))]) }
        }
        return nil
    }

    /// The numbers in `{{1, 2}, {3, 4}}` or `0.1 0.2 0.3`.
    static func numbers(in text: String) -> [Double] {
        text.split(whereSeparator: { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "e" || $0 == "E" || $0 == "+") })
            .compactMap { Double($0) }
    }
}

/// The number of values an archive's object graph expands to from one object, each object's
/// share counted once and kept (a graph is walked in time proportional to its objects and
/// references, however often they are shared). A reference back into the path counts one
/// (`.cycle`). Every reference inside an object counts, so this bounds what `KeyedUnarchiver`
/// decodes from above.
struct ExpansionMeasure {
    let archive: KeyedArchive
    private var sizes: [Int: Int] = [:]
    private var path: Set<Int> = []

    init(_ archive: KeyedArchive) {
        self.archive = archive
    }

    /// The expansion of the object at `index`, or a number past `limit` as soon as it is
    /// known to pass it.
    func size(of index: Int, limit: Int) -> Int {
        var measure = self
        return measure.measure(index, limit: limit, depth: 0)
    }

    private mutating func measure(_ index: Int, limit: Int, depth: Int) -> Int {
        if let known = sizes[index] { return known }
        guard archive.objects.indices.contains(index), depth < KeyedUnarchiver.depthLimit else { return 1 }
        guard path.insert(index).inserted else { return 1 }
        defer { path.remove(index) }
        var total = 1
        var pending: [PropertyListValue] = [archive.objects[index]]
        while let value = pending.popLast(), total <= limit {
            switch value {
            case .uid(let target) where target != 0 && target != index:
                total += measure(target, limit: limit - total, depth: depth + 1)
            case .array(let items):
                pending.append(contentsOf: items)
            case .dictionary(let pairs):
                for (key, item) in pairs where key.stringValue != "$class" {
                    pending.append(key)
                    pending.append(item)
                }
            default:
                total += 0
            }
        }
        // A size cut short by the limit is not kept: it only says "too many".
        if total <= limit { sizes[index] = total }
        return total
    }
}
