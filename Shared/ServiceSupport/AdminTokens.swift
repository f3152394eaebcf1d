/// The operators' admin tokens, each under a name the audit log records: `ADMIN_TOKENS=name:token,name:token` (one per
/// member of staff, revoked by removing it), and `ADMIN_TOKEN`, named `admin`. At least one must be set; each is held to
/// the rules of any secret (`ServiceConfig.secret`).
public struct AdminTokens: Sendable {
    public struct Named: Sendable {
        public let name: String
        public let token: ServiceToken
    }

    public let all: [Named]

    public init(_ all: [Named]) { self.all = all }

    public init(config: ServiceConfig) throws {
        var all: [Named] = []
        if config.string("ADMIN_TOKEN") != nil { all.append(Named(name: "admin", token: ServiceToken(try config.secret("ADMIN_TOKEN")))) }
        if let list = config.string("ADMIN_TOKENS") {
            for entry in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
                guard let colon = entry.firstIndex(of: ":") else {
                    throw ServiceConfig.Invalid(description: "ADMIN_TOKENS must be name:token pairs separated by commas")
                }
                let name = String(entry[..<colon])
                let token = String(entry[entry.index(after: colon)...])
                guard Self.isValidName(name) else {
                    throw ServiceConfig.Invalid(description: "ADMIN_TOKENS: a name is 1 to 40 letters, digits, '.', '_' or '-'")
                }
                guard !token.isEmpty else { throw ServiceConfig.Invalid(description: "ADMIN_TOKENS: \(name) has no token") }
                guard !all.contains(where: { $0.name == name }) else {
                    throw ServiceConfig.Invalid(description: "ADMIN_TOKENS: the name \(name) is given twice")
                }
                let checked = try ServiceConfig(
                    environment: [:],
                    overrides: ["ADMIN_TOKENS": token, "BOOKMOBILE_ENV": config.string("BOOKMOBILE_ENV") ?? ""]
                )
                .secret("ADMIN_TOKENS")
                all.append(Named(name: name, token: ServiceToken(checked)))
            }
        }
        guard !all.isEmpty else { throw ServiceConfig.Invalid(description: "ADMIN_TOKEN or ADMIN_TOKENS must be set") }
        self.all = all
    }

    static func isValidName(_ name: String) -> Bool {
        (1...40).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }

    /// The name of the token `candidate` is, nil when it is none of them; every token is compared, in constant time.
    public func name(of candidate: String?) -> String? {
        var found: String?
        for named in all where named.token.matches(candidate) { found = found ?? named.name }
        return found
    }
}

/// The operator an admin request came from, for the audit log: the name of its token (`AdminTokenMiddleware`).
public enum AdminCaller {
    @TaskLocal public static var name: String?
}
