import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// Thrown by `/me` routes when the request carries no authenticated patron; answered with the auth document.
struct AuthenticationRequired: Error {}
