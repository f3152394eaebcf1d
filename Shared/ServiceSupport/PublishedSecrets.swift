/// Secret values that anyone can read in this repository (`make run`, `.env.example`, `deploy/k8s`): a service outside
/// development refuses them (`ServiceConfig.secret`), so that an example can never become a library's real secret.
public enum PublishedSecrets {
    static let values: Set<String> = [
        "dev-service-token-change-me", "dev-jwt-secret-change-me-please-0123456789", "dev-admin-token",
        "change-me", "change-me-to-32-or-more-random-characters",
    ]

    /// A published value, or any value with the examples' "change-me" marker in it.
    public static func contains(_ value: String) -> Bool {
        values.contains(value) || value.lowercased().contains("change-me")
    }
}
