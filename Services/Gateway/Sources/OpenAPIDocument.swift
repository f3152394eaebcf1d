import Foundation

/// The OpenAPI document served at `/openapi.yaml` (Resources/openapi.yaml).
enum OpenAPIDocument {
    static let yaml: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            return "openapi: 3.0.3\n"
        }
        return text
    }()
}
