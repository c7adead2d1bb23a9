/// Integers as SQLite's file format writes them (sqlite.org/fileformat2.html, "1.3 The Database
/// Header", "1.6 B-tree Pages", "2.1 Record Format"): big-endian fixed widths, and the
/// variable-length integer of cells and records.
///
/// Every read is bounds-checked and answers nil past the end: the bytes are user input (a
/// page pulled off a phone, a frame half written), and a read past them must never trap.
enum FormatBytes {
    static func u8(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return Int(bytes[offset])
    }

    static func u16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// A 32-bit word in the byte order a WAL's magic number or a WAL index names.
    static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int, bigEndian: Bool) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    /// SQLite's variable-length integer: big-endian groups of seven bits, the ninth byte
    /// whole. The value and the offset after it, or nil when it runs off the bytes.
    static func varint(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt64, Int)? {
        guard offset >= 0 else { return nil }
        var value: UInt64 = 0
        for i in 0..<9 {
            guard offset + i < bytes.count else { return nil }
            let byte = bytes[offset + i]
            if i == 8 { return (value << 8 | UInt64(byte), offset + 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (value, offset + i + 1) }
        }
        return nil
    }
}
