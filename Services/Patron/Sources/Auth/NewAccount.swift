import Foundation
import Shared

/// A validated account, ready to be stored.
struct NewAccount {
    var barcode: String
    var username: String?
    var email: String?
    var secret: String
    var displayName: String
}
