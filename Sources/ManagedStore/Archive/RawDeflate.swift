import CZlib

/// Raw DEFLATE compression, the inverse of `RawInflate`, for writing `Z_MODELCACHE`.
public enum RawDeflate {
    public static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        guard input.count <= Int(UInt32.max / 2) else { throw RawInflate.Error(description: "data to compress exceeds 2 GiB") }
        var output = [UInt8](repeating: 0, count: Int(cdi_deflate_bound(UInt(input.count))) + 64)
        var written: UInt = 0
        let status = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                cdi_deflate(inBuffer.baseAddress, UInt32(inBuffer.count), outBuffer.baseAddress, UInt32(outBuffer.count), &written)
            }
        }
        guard status == Int32(CDI_Z_STREAM_END) else { throw RawInflate.Error(description: "zlib could not compress (\(status))") }
        return Array(output[0..<Int(written)])
    }
}
