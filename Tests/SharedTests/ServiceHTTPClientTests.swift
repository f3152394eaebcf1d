import AsyncHTTPClient
import ServiceSupport
import Testing

/// `UPSTREAM_CONNECT_TIMEOUT`: the services' connect timeout, refused at start when it cannot be used.
@Suite struct ServiceHTTPClientTests {
    @Test func theConnectTimeoutIsTwoSecondsUnlessToldAndNeverZeroOrMalformed() throws {
        #expect(try HTTPClient.connectTimeout(ServiceConfig(environment: [:])) == 2)
        #expect(try HTTPClient.connectTimeout(ServiceConfig(environment: ["UPSTREAM_CONNECT_TIMEOUT": "15s"])) == 15)
        for bad in ["0", "soon", "-3"] {
            #expect(throws: ServiceConfig.Invalid.self, "\(bad)") {
                try HTTPClient.connectTimeout(ServiceConfig(environment: ["UPSTREAM_CONNECT_TIMEOUT": bad]))
            }
        }
    }
}
