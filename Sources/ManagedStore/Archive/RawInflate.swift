import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951, no zlib header), which is how Core Data compresses `Z_MODELCACHE`
/// (Apple's `COMPRESSION_ZLIB`). Foundation on Linux has no decompression API, so this goes
/// straight to the system zlib, through CZlib's own functions (see its shim.h for why).
public enum RawInflate {
    public struct Error: Swift.Error, CustomStringConvertible {
        public let description: String
    }

    /// Refuses output past `limit` bytes so a corrupt blob cannot exhaust memory.
    public static func inflate(_ input: [UInt8], limit: Int = 256 << 20) throws -> [UInt8] {
        guard input.count <= Int(UInt32.max) else { throw Error(description: "compressed data exceeds 4 GiB") }
        guard let inflater = cdi_inflater_new() else { throw Error(description: "zlib could not start") }
        defer { cdi_inflater_free(inflater) }
        var output: [UInt8] = []
        // A chunk sized to the input, up to 64 KiB: a small model's cache inflates into a few
        // KiB, and a 64 KiB buffer would be zeroed (and its pages faulted in) at every open.
        var chunk = [UInt8](repeating: 0, count: min(64 << 10, max(4 << 10, input.count * 4)))
        return try input.withUnsafeBufferPointer { inBuffer -> [UInt8] in
            cdi_inflater_input(inflater, inBuffer.baseAddress, UInt32(inBuffer.count))
            var status: Int32
            repeat {
                var produced: UInt32 = 0
                status = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    cdi_inflate(inflater, outBuffer.baseAddress, UInt32(outBuffer.count), &produced)
                }
                output.append(contentsOf: chunk[0..<Int(produced)])
                guard output.count <= limit else { throw Error(description: "inflated data exceeds \(limit) bytes") }
                if status == Int32(CDI_Z_BUF_ERROR) && cdi_inflater_pending_input(inflater) == 0 {
                    throw Error(description: "compressed data is truncated")
                }
            } while status == Int32(CDI_Z_OK)
            guard status == Int32(CDI_Z_STREAM_END) else {
                throw Error(description: "compressed data is corrupt (zlib \(status))")
            }
            return output
        }
    }
}
