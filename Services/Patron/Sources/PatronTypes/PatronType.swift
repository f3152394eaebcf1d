import Foundation
import ServiceSupport

/// A patron's type: what the library lends them (loan and hold limits per type, `PATRON_TYPE_LIMITS`). Set by the
/// library's ILS at each sign-in (its `PC` field, named through `PATRON_TYPE_NAMES`) or by staff; none is an adult.
enum PatronType: String, CaseIterable, Codable, Sendable {
    case adult
    case teen
    case child
}

/// The deployment's rules for patron types: the ILS's names for them and each type's limits.
struct PatronTypeRules: Sendable {
    /// `PATRON_TYPE_NAMES`: the ILS's patron type names (lower case) for each type, beyond the types' own names.
    var names: [String: PatronType] = [:]
    /// `PATRON_TYPE_LIMITS`: loans and holds at once for a type; a type not named has `LOAN_LIMIT` and `HOLD_LIMIT`.
    var limits: [PatronType: (loans: Int, holds: Int)] = [:]
    var defaultLimits: (loans: Int, holds: Int)

    /// From `PATRON_TYPE_NAMES` (`juvenile=child,j=child,ya=teen`) and `PATRON_TYPE_LIMITS` (`child=3:3,teen=5:5`).
    init(names: String?, limits: String?, defaultLimits: (loans: Int, holds: Int)) throws {
        self.defaultLimits = defaultLimits
        for pair in Self.pairs(names ?? "") {
            guard let type = PatronType(rawValue: pair.value) else {
                throw ServiceConfig.Invalid(description: "PATRON_TYPE_NAMES: \(pair.value) is not one of adult, teen, child")
            }
            self.names[pair.key] = type
        }
        for pair in Self.pairs(limits ?? "") {
            let numbers = pair.value.split(separator: ":").compactMap { Int($0) }
            guard let type = PatronType(rawValue: pair.key), numbers.count == 2, numbers.allSatisfy({ $0 >= 0 }) else {
                throw ServiceConfig.Invalid(description: "PATRON_TYPE_LIMITS must read like child=3:3,teen=5:5 (loans:holds per type)")
            }
            self.limits[type] = (numbers[0], numbers[1])
        }
    }

    /// The type an ILS's name stands for: a type's own name, one `PATRON_TYPE_NAMES` maps, else adult.
    func type(named name: String?) -> PatronType {
        guard let name = name?.lowercased().trimmingCharacters(in: .whitespaces), !name.isEmpty else { return .adult }
        return names[name] ?? PatronType(rawValue: name) ?? .adult
    }

    /// The strictest type any of `names` stands for (an identity provider's claim may list several groups): a child's
    /// over a teen's over an adult's; names that stand for no type count for nothing, and none at all is an adult.
    func strictest(named names: [String]) -> PatronType {
        let known = names.compactMap { name -> PatronType? in
            let key = name.lowercased().trimmingCharacters(in: .whitespaces)
            return self.names[key] ?? PatronType(rawValue: key)
        }
        return PatronType.allCases.last(where: known.contains) ?? .adult
    }

    func limits(for type: PatronType) -> (loans: Int, holds: Int) { limits[type] ?? defaultLimits }

    private static func pairs(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: ",").compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }
}
