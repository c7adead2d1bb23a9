/// Writes `bplist00`, the inverse of `BinaryPropertyList`: used to create stores whose
/// `Z_METADATA` and `Z_MODELCACHE` are in the format Core Data writes.
public enum BinaryPropertyListWriter {
    public static func encode(_ root: PropertyListValue) -> [UInt8] {
        var objects: [[UInt8]] = []
        var pendingRefs: [(object: Int, children: [Int])] = []
        // First pass: flatten the tree into a list, children after parents.
        var flat: [PropertyListValue] = []
        var children: [[Int]] = []
        func add(_ value: PropertyListValue) -> Int {
            let index = flat.count
            flat.append(value)
            children.append([])
            switch value {
            case .array(let items):
                children[index] = items.map { add($0) }
            case .dictionary(let pairs):
                let keys = pairs.map { add($0.key) }
                let values = pairs.map { add($0.value) }
                children[index] = keys + values
            default: break
            }
            return index
        }
        _ = add(root)
        let refSize = flat.count < 256 ? 1 : flat.count < 65536 ? 2 : 4
        func ref(_ i: Int) -> [UInt8] { bigEndian(UInt64(i), size: refSize) }
        for (i, value) in flat.enumerated() {
            var bytes: [UInt8] = []
            switch value {
            case .null: bytes = [0x00]
            case .bool(let b): bytes = [b ? 0x09 : 0x08]
            case .integer(let n):
                if n >= 0 && n < 256 { bytes = [0x10, UInt8(n)] }
                else if n >= 0 && n < 65536 { bytes = [0x11] + bigEndian(UInt64(n), size: 2) }
                else if n >= 0 && n < 1 << 32 { bytes = [0x12] + bigEndian(UInt64(n), size: 4) }
                else { bytes = [0x13] + bigEndian(UInt64(bitPattern: n), size: 8) }
            case .real(let d): bytes = [0x23] + bigEndian(d.bitPattern, size: 8)
            case .date(let d): bytes = [0x33] + bigEndian(d.bitPattern, size: 8)
            case .data(let data): bytes = header(0x40, data.count) + data
            case .string(let s):
                if s.unicodeScalars.allSatisfy(\.isASCII) {
                    bytes = header(0x50, s.utf8.count) + Array(s.utf8)
                } else {
                    let units = Array(s.utf16)
                    bytes = header(0x60, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
                }
            case .uid(let u):
                // A UID read from someone's bytes may be any 64-bit pattern (FailCases/
                // BinaryPropertyList): written in as many bytes as it needs, never trapped on.
                let raw = UInt64(bitPattern: Int64(u))
                let size = raw < 256 ? 1 : raw < 65536 ? 2 : raw < 1 << 32 ? 4 : 8
                bytes = [0x80 | UInt8(size - 1)] + bigEndian(raw, size: size)
            case .array(let items): bytes = header(0xA0, items.count)
            case .dictionary(let pairs): bytes = header(0xD0, pairs.count)
            }
            if !children[i].isEmpty || value.isCollection { pendingRefs.append((i, children[i])) }
            objects.append(bytes)
        }
        for (object, refs) in pendingRefs { objects[object] += refs.flatMap(ref) }
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        for bytes in objects {
            offsets.append(output.count)
            output += bytes
        }
        let tableOffset = output.count
        let offsetSize = tableOffset < 256 ? 1 : tableOffset < 65536 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { output += bigEndian(UInt64(offset), size: offsetSize) }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        output += bigEndian(UInt64(flat.count), size: 8) + bigEndian(0, size: 8) + bigEndian(UInt64(tableOffset), size: 8)
        return output
    }

    private static func header(_ marker: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [marker | UInt8(count)] }
        let size = count < 256 ? 0 : count < 65536 ? 1 : 2
        return [marker | 0x0F, 0x10 | UInt8(size)] + bigEndian(UInt64(count), size: 1 << size)
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

extension PropertyListValue {
    var isCollection: Bool {
        switch self {
        case .array, .dictionary: return true
        default: return false
        }
    }
}
