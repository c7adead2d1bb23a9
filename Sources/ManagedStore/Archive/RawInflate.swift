import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951, no zlib header), which is how Core Data compresses `Z_MODELCACHE`
/// (Apple's `COMPRESSION_ZLIB`). Foundation on Linux has no decompression API, so this goes
/// straight to the system zlib.
public enum RawInflate {
    public struct Error: Swift.Error, CustomStringConvertible {
        public let description: String
    }

    /// Refuses output past `limit` bytes so a corrupt blob cannot exhaust memory.
    public static func inflate(_ input: [UInt8], limit: Int = 256 << 20) throws -> [UInt8] {
        var stream = z_stream()
        var status = inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Error(description: "zlib could not start (\(status))") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        // A chunk sized to the input, up to 64 KiB: a small model's cache inflates into a few
        // KiB, and a 64 KiB buffer would be zeroed (and its pages faulted in) at every open.
        var chunk = [UInt8](repeating: 0, count: min(64 << 10, max(4 << 10, input.count * 4)))
        var input = input
        let inputCount = input.count
        return try input.withUnsafeMutableBufferPointer { inBuffer -> [UInt8] in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inputCount)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return outBuffer.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= limit else { throw Error(description: "inflated data exceeds \(limit) bytes") }
                if status == Z_BUF_ERROR && stream.avail_in == 0 {
                    throw Error(description: "compressed data is truncated")
                }
            } while status == Z_OK
            guard status == Z_STREAM_END else {
                throw Error(description: "compressed data is corrupt (zlib \(status))")
            }
            return output
        }
    }
}
