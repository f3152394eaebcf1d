import ServiceSupport
import Shared

/// Why an EPUB was refused. Every case is answered 422 with a problem document naming the reason.
enum EPUBError: ProblemConvertible, Equatable {
    case notAZip
    case missingContainer
    case missingPackage(String)
    case unreadablePackage(String)
    case noTitle
    case tooManyEntries(Int)
    case zipBomb(String)
    case unsafePath(String)
    case hostileXML(String)
    case tooLarge(Int)

    var slug: String {
        switch self {
        case .notAZip: "not-a-zip"
        case .missingContainer: "missing-container"
        case .missingPackage: "missing-package"
        case .unreadablePackage: "unreadable-package"
        case .noTitle: "no-title"
        case .tooManyEntries: "too-many-entries"
        case .zipBomb: "zip-bomb"
        case .unsafePath: "unsafe-path"
        case .hostileXML: "hostile-xml"
        case .tooLarge: "too-large"
        }
    }

    var detail: String {
        switch self {
        case .notAZip: "The file is not a ZIP archive, so it cannot be an EPUB"
        case .missingContainer: "META-INF/container.xml is missing"
        case .missingPackage(let path): "The package document \(path) named by container.xml is missing"
        case .unreadablePackage(let reason): "The package document cannot be read: \(reason)"
        case .noTitle: "The package document has no title"
        case .tooManyEntries(let count): "The archive has \(count) entries, more than an EPUB may have here"
        case .zipBomb(let reason): "The archive looks like a zip bomb: \(reason)"
        case .unsafePath(let path): "The archive entry name '\(path)' is unsafe (absolute, '..' or not UTF-8)"
        case .hostileXML(let path): "\(path) declares XML entities, which are refused"
        case .tooLarge(let limit): "The file is larger than the limit of \(limit) bytes"
        }
    }

    var problem: Problem {
        Problem(status: self == .tooLarge(0) ? 413 : 422, slug: slug, title: "The EPUB was refused", detail: detail)
    }
}
