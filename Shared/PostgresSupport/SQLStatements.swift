/// The statements of a script, for the extended protocol, which runs one at a time. A statement ends with `;` at the
/// end of a line outside a `$$` quoted body.
enum SQLStatements {
    static func split(_ sql: String) -> [String] {
        var result: [String] = []
        var current = ""
        var inQuotedBody = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if line.components(separatedBy: "$$").count % 2 == 0 { inQuotedBody.toggle() }
            if !inQuotedBody, line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                result.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { result.append(current) }
        return result
    }
}
