import CZlib

/// Raw DEFLATE compression, the inverse of `RawInflate`, for writing `Z_MODELCACHE`.
public enum RawDeflate {
    public static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw RawInflate.Error(description: "zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        var input = input
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound + 64)
        let inputCount = input.count
        let outputCount = output.count
        let status = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inputCount)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outputCount)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw RawInflate.Error(description: "zlib could not compress (\(status))") }
        return Array(output[0..<Int(stream.total_out)])
    }
}
