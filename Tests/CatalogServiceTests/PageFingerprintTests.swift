import Testing

@testable import CatalogService

/// The ETag value of a feed page: the same bytes give the same 32 digits everywhere, and any change gives others.
@Suite struct PageFingerprintTests {
    static func fingerprint(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { PageFingerprint.hex(of: $0) } }

    /// Pinned: replicas and later versions must agree, or every client's ETag misses after an upgrade.
    @Test func theSameBytesGiveTheSameDigitsEverywhere() {
        let page = Array("<feed>a page</feed>".utf8)
        #expect(Self.fingerprint(page) == Self.fingerprint(page))
        #expect(Self.fingerprint(page).count == 32)
        #expect(Self.fingerprint(page).allSatisfy { "0123456789abcdef".contains($0) })
        #expect(Self.fingerprint([]) == Self.fingerprint([]))
        #expect(Self.fingerprint(Array("abc".utf8)) == "21540efffc8083cc7f72db30fc09ecf0")
        #expect(Self.fingerprint(Array(String(repeating: "bookmobile ", count: 5).utf8)) == "ec027342734c79faa7a4507949eb59ed")
    }

    /// Every length around the 16-byte blocks, and every single bit flipped in a page of two and a half blocks.
    @Test func everyLengthAndEveryFlippedBitGivesOtherDigits() {
        var seen = Set<String>()
        let pattern = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...pattern.count { seen.insert(Self.fingerprint(Array(pattern.prefix(length)))) }
        #expect(seen.count == pattern.count + 1)
        // Zeros of every length differ too (the tail is padded with zeros; its length counts).
        let zeros = Set((0...40).map { Self.fingerprint([UInt8](repeating: 0, count: $0)) })
        #expect(zeros.count == 41)
        let page = Array(pattern.prefix(40))
        var flipped = Set([Self.fingerprint(page)])
        for bit in 0..<(page.count * 8) {
            var changed = page
            changed[bit / 8] ^= 1 << (bit % 8)
            flipped.insert(Self.fingerprint(changed))
        }
        #expect(flipped.count == page.count * 8 + 1)
    }

    /// Two blocks swapped, and a block that zeroes the first lane's multiply after different beginnings.
    @Test func orderMattersAndNoBlockWipesWhatCameBefore() {
        let first = Array("0123456789abcdef".utf8)
        let second = Array("fedcba9876543210".utf8)
        #expect(Self.fingerprint(first + second) != Self.fingerprint(second + first))
        var wiping = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: UInt64(0xA409_3822_299F_31D0).littleEndian) { wiping.replaceSubrange(0..<8, with: $0) }
        #expect(Self.fingerprint(first + wiping) != Self.fingerprint(second + wiping))
    }
}
