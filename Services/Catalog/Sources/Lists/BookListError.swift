import Foundation

/// Why a list change was refused; `ListsController` answers each with a problem document.
enum BookListError: Error, Equatable {
    case notFound(UUID)
    case tooManyLists(Int)
    case tooManyBooks(Int)
    case unknownBooks([UUID])
}
