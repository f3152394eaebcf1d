import Foundation

/// Parses an operator-facing duration: plain seconds (`90`) or a number with a unit `s`, `m`, `h` or `d` (`21d`, `1.5h`).
public enum DurationText {
    public static func seconds(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let last = trimmed.last else { return nil }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let (number, unit) = units[last].map { (String(trimmed.dropLast()), $0) } ?? (trimmed, 1)
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return value * unit
    }
}
