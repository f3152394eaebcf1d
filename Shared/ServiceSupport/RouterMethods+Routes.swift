import HTTPTypes
import Hummingbird
import Shared

/// Registering a route from its definition (`router.get(.cover(.key), use: cover)`): the router's path and every
/// link to it come from the one case of `PublicRoute` or `InternalRoute`.
extension RouterMethods {
    public typealias Handler<Output> = @Sendable (Request, Context) async throws -> Output

    /// The methods below name the two route types so that their cases can be written `.cover(.key)`.
    @discardableResult
    public func on<Output: ResponseGenerator>(
        _ route: some RouteDefinition,
        method: HTTPRequest.Method,
        use handler: @escaping Handler<Output>
    ) -> Self {
        on(RouterPath(route.path), method: method, use: handler)
    }

    @discardableResult
    public func get<Output: ResponseGenerator>(_ route: PublicRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .get, use: handler)
    }

    @discardableResult
    public func post<Output: ResponseGenerator>(_ route: PublicRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .post, use: handler)
    }

    @discardableResult
    public func put<Output: ResponseGenerator>(_ route: PublicRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .put, use: handler)
    }

    @discardableResult
    public func patch<Output: ResponseGenerator>(_ route: PublicRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .patch, use: handler)
    }

    @discardableResult
    public func delete<Output: ResponseGenerator>(_ route: PublicRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .delete, use: handler)
    }

    @discardableResult
    public func get<Output: ResponseGenerator>(_ route: InternalRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .get, use: handler)
    }

    @discardableResult
    public func post<Output: ResponseGenerator>(_ route: InternalRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .post, use: handler)
    }

    @discardableResult
    public func put<Output: ResponseGenerator>(_ route: InternalRoute, use handler: @escaping Handler<Output>) -> Self {
        on(route, method: .put, use: handler)
    }
}
