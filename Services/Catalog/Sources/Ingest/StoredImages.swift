import Foundation
import ServiceSupport
import Shared

/// The columns of a book's cover and its thumbnail.
struct StoredImages: Sendable {
    var coverSHA256: String?
    var coverType: String?
    var coverSource: CoverSource?
    var thumbnailSHA256: String?
    var thumbnailType: String?
}
