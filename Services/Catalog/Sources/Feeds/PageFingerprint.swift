import Shared

/// A feed page's ETag value: 128 bits of its bytes as 32 hex digits, the same for the same bytes in every process
/// and on every replica (Swift's `Hasher` is seeded per process). SHA-256 took 5 % of a cold lane page's time in
/// catalog; this reads 16 bytes a step with two 64-bit multiplies. Not cryptographic: a page's bytes are the library's
/// own, and an ETag needs no defence against chosen collisions.
enum PageFingerprint {
    static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        // Two lanes: `a` carries its state through each multiply (as wyhash does); `b` adds each block's product to
        // its rotated state, so that a block that zeroes one multiply cannot wipe what came before from both.
        var a: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(count)
        var b: UInt64 = 0x1319_8A2E_0370_7344
        var offset = 0
        while offset + 16 <= count {
            let w0 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let w1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            a = mix(w0 ^ 0xA409_3822_299F_31D0, w1 ^ a)
            b = ((b << 29) | (b >> 35)) &+ mix(w1 ^ 0x082E_FA98_EC4E_6C89, w0 ^ 0x4528_21E6_38D0_1377)
            offset += 16
        }
        var tail: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &tail) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
        let (t0, t1) = (UInt64(littleEndian: tail.0), UInt64(littleEndian: tail.1))
        a = mix(t0 ^ 0xBE54_66CF_34E9_0C6C ^ UInt64(count - offset), t1 ^ a)
        b = ((b << 29) | (b >> 35)) &+ mix(t1 ^ 0xC0AC_29B7_C97C_50DD, t0 ^ 0x3F84_D5B5_B547_0917)
        let high = mix(a ^ 0x9216_D5D9_8979_FB1B, b ^ 0xD131_0BA6_98DF_B5AC)
        let low = mix(b ^ 0x2FFD_72DB_D01A_DFB7, a ^ 0xB8E1_AFED_6A26_7E96 ^ UInt64(count))
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Hex.string($0) }
    }

    /// The 128-bit product's halves folded together.
    private static func mix(_ x: UInt64, _ y: UInt64) -> UInt64 {
        let (high, low) = x.multipliedFullWidth(by: y)
        return high ^ low
    }
}
