import Foundation
import ServiceSupport
import Shared

enum SortOrder: String, CaseIterable, Sendable {
    case asc, desc
}
