import Foundation

/// A path parameter of a route: a value when a link is built, the router's placeholder when the route is registered.
/// One definition of a route gives both (the Swift Package Index's `SiteURL.Parameter` is the model).
public enum RouteParameter<Value: RouteParameterValue>: Sendable, Equatable {
    /// The router's placeholder: `:name`, which the handler reads with `context.parameters`.
    case key
    case value(Value)

    /// The segment's text: the value, or `placeholder` on the router.
    func segment(or placeholder: String) -> String {
        switch self {
        case .key: placeholder
        case .value(let value): value.pathSegment
        }
    }
}

/// A route: its path, with `:name` placeholders where it was made with `.key` (what the router registers).
public protocol RouteDefinition: Sendable {
    var path: String { get }
}

/// A value that can be one segment of a path.
public protocol RouteParameterValue: Sendable, Equatable {
    var pathSegment: String { get }
}

extension UUID: RouteParameterValue {
    /// Lower case, as every id Bookmobile writes.
    public var pathSegment: String { lowercased }
}

extension String: RouteParameterValue {
    /// The text as given: the caller percent-encodes a name (`PercentEncoding.pathSegment`) or a resource path.
    public var pathSegment: String { self }
}
