import Foundation

/// A reader for Apple's binary property list format (`bplist00`).
///
/// Used for `Z_METADATA.Z_PLIST` and for the keyed archive inside `Z_MODELCACHE`. Every offset
/// and length is bounds-checked: a truncated or hostile blob becomes an error, never a crash.
public struct BinaryPropertyList {
    public enum Error: Swift.Error, CustomStringConvertible {
        case notABinaryPropertyList
        case malformed(String)

        public var description: String {
            switch self {
            case .notABinaryPropertyList: return "not a binary property list"
            case .malformed(let why): return "malformed binary property list: \(why)"
            }
        }
    }

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let refSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let offsetTableStart: Int

    /// The root object of the property list.
    public static func decode(_ data: [UInt8]) throws -> PropertyListValue {
        let reader = try BinaryPropertyList(data)
        var walk = Walk()
        return try reader.object(at: reader.topObject, walk: &walk)
    }

    private init(_ data: [UInt8]) throws {
        guard data.count >= 40, Array(data[0..<8]) == Array("bplist00".utf8) else {
            throw Error.notABinaryPropertyList
        }
        bytes = data
        let trailer = data.count - 32
        offsetSize = Int(data[trailer + 6])
        refSize = Int(data[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw Error.malformed("bad trailer sizes")
        }
        let count = BinaryPropertyList.readUInt(data, trailer + 8, 8)
        let top = BinaryPropertyList.readUInt(data, trailer + 16, 8)
        let table = BinaryPropertyList.readUInt(data, trailer + 24, 8)
        guard count < UInt64(data.count), top < count, table < UInt64(trailer),
              table + count * UInt64(offsetSize) <= UInt64(trailer)
        else { throw Error.malformed("trailer points outside the data") }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTableStart = Int(table)
    }

    private static func readUInt(_ bytes: [UInt8], _ start: Int, _ size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size { value = (value << 8) | UInt64(bytes[start + i]) }
        return value
    }

    private func checkedRange(_ start: Int, _ length: Int) throws -> Range<Int> {
        guard start >= 0, length >= 0, start <= offsetTableStart, length <= offsetTableStart - start else {
            throw Error.malformed("object runs past the end of the data")
        }
        return start..<(start + length)
    }

    private func offset(of object: Int) throws -> Int {
        guard object >= 0, object < objectCount else { throw Error.malformed("object reference \(object) out of range") }
        let value = BinaryPropertyList.readUInt(bytes, offsetTableStart + object * offsetSize, offsetSize)
        guard value < UInt64(offsetTableStart) else { throw Error.malformed("object offset out of range") }
        return Int(value)
    }

    /// Reads the length that follows a marker whose low nibble is 0xF.
    private func length(marker: UInt8, at position: inout Int) throws -> Int {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return low }
        _ = try checkedRange(position, 1)
        let intMarker = bytes[position]
        guard intMarker & 0xF0 == 0x10 else { throw Error.malformed("bad length marker") }
        let size = 1 << Int(intMarker & 0x0F)
        guard size <= 8 else { throw Error.malformed("length too large") }
        let range = try checkedRange(position + 1, size)
        position = range.upperBound
        let value = BinaryPropertyList.readUInt(bytes, range.lowerBound, size)
        guard value < UInt64(bytes.count) else { throw Error.malformed("length too large") }
        return Int(value)
    }

    private func refs(count: Int, at position: Int) throws -> [Int] {
        guard count <= objectCount else { throw Error.malformed("collection larger than the object table") }
        let range = try checkedRange(position, count * refSize)
        return stride(from: range.lowerBound, to: range.upperBound, by: refSize).map {
            Int(truncatingIfNeeded: BinaryPropertyList.readUInt(bytes, $0, refSize))
        }
    }

    /// How deep the decoder is, and how many objects it has produced. Objects are shared by
    /// reference, so a small hostile file can nest arrays that each refer to the next one
    /// many times: the count stops that from expanding exponentially.
    struct Walk {
        var depth = 0
        var objects = 0
        static let maxDepth = 512
        /// Sixteen times Photos' model cache (61,000 objects), the largest seen; four million
        /// took 38 s under AddressSanitizer before a list was refused (FuzzModelCache's timeout).
        static let maxObjects = 1_000_000
    }

    private func object(at index: Int, walk: inout Walk) throws -> PropertyListValue {
        walk.depth += 1
        walk.objects += 1
        defer { walk.depth -= 1 }
        guard walk.depth < Walk.maxDepth else { throw Error.malformed("nesting too deep (a reference cycle?)") }
        guard walk.objects <= Walk.maxObjects else { throw Error.malformed("more than \(Walk.maxObjects) objects (shared references expanding?)") }
        var position = try offset(of: index)
        let marker = bytes[position]
        position += 1
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: return .null
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            let range = try checkedRange(position, size)
            if size == 16 {
                // 128-bit integers only carry values that fit in the low 64 bits here.
                return .integer(Int64(bitPattern: BinaryPropertyList.readUInt(bytes, range.lowerBound + 8, 8)))
            }
            guard size <= 8 else { throw Error.malformed("integer too wide") }
            let raw = BinaryPropertyList.readUInt(bytes, range.lowerBound, size)
            return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2, 0x3:
            let size = marker >> 4 == 0x3 ? 8 : 1 << Int(marker & 0x0F)
            let range = try checkedRange(position, size)
            let raw = BinaryPropertyList.readUInt(bytes, range.lowerBound, size)
            let value: Double
            switch size {
            case 4: value = Double(Float(bitPattern: UInt32(raw)))
            case 8: value = Double(bitPattern: raw)
            default: throw Error.malformed("real of size \(size)")
            }
            return marker >> 4 == 0x3 ? .date(value) : .real(value)
        case 0x4:
            let count = try length(marker: marker, at: &position)
            return .data(Array(bytes[try checkedRange(position, count)]))
        case 0x5:
            let count = try length(marker: marker, at: &position)
            let slice = bytes[try checkedRange(position, count)]
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let count = try length(marker: marker, at: &position)
            let range = try checkedRange(position, count * 2)
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for i in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
                units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            let range = try checkedRange(position, size)
            return .uid(Int(truncatingIfNeeded: BinaryPropertyList.readUInt(bytes, range.lowerBound, min(size, 8))))
        case 0xA, 0xC:
            let count = try length(marker: marker, at: &position)
            return .array(try refs(count: count, at: position).map { try object(at: $0, walk: &walk) })
        case 0xD:
            let count = try length(marker: marker, at: &position)
            let keys = try refs(count: count, at: position)
            let values = try refs(count: count, at: position + count * refSize)
            var pairs: [(key: PropertyListValue, value: PropertyListValue)] = []
            pairs.reserveCapacity(count)
            for (k, v) in zip(keys, values) {
                pairs.append((try object(at: k, walk: &walk), try object(at: v, walk: &walk)))
            }
            return .dictionary(pairs)
        default:
            throw Error.malformed(String(format: "unknown object marker 0x%02X", marker))
        }
    }
}
