import Foundation

/// Library-card barcodes: 14 digits whose last digit is a Luhn check digit.
enum Barcode {
    /// A new random barcode starting with `2` (the usual prefix of patron cards).
    static func generate() -> String {
        var digits = [2] + (0..<12).map { _ in Int.random(in: 0...9) }
        digits.append(checkDigit(for: digits))
        return digits.map(String.init).joined()
    }

    /// True for 14 digits with a correct check digit.
    static func isValid(_ text: String) -> Bool {
        let digits = text.compactMap(\.wholeNumberValue)
        guard text.count == 14, digits.count == 14 else { return false }
        return checkDigit(for: Array(digits.dropLast())) == digits.last
    }

    static func checkDigit(for digits: [Int]) -> Int {
        let sum = digits.reversed().enumerated().reduce(0) { sum, pair in
            let (index, digit) = pair
            guard index % 2 == 0 else { return sum + digit }
            let doubled = digit * 2
            return sum + (doubled > 9 ? doubled - 9 : doubled)
        }
        return (10 - sum % 10) % 10
    }

    /// The Codabar form a client renders as a scannable barcode (start and stop characters A/B).
    static func codabar(_ barcode: String) -> String { "A\(barcode)B" }
}
