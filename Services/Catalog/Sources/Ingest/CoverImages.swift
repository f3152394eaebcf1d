import Foundation
import ServiceSupport
import Shared

/// A book's cover with its thumbnail, ready to store: blobs to write and the columns that name them.
struct CoverImages: Sendable {
    let cover: Data
    let type: String
    let thumbnail: CoverThumbnail?
    let source: CoverSource
    /// Why no thumbnail could be made, for the ingest warnings.
    let thumbnailFailure: String?

    /// Largest cover an operator may send.
    static let maxUploadBytes = 16 << 20

    /// A raster cover (JPEG, PNG, GIF, WebP by its bytes) with its thumbnail; nil thumbnail for a small cover, which
    /// is its own. Never throws: a cover libvips cannot scale is kept without a thumbnail, as ingest always did.
    init(raster: Data, type: String, source: CoverSource) {
        self.cover = raster
        self.type = type
        self.source = source
        do {
            thumbnail = try CoverThumbnail.make(from: raster)
            thumbnailFailure = nil
        } catch {
            thumbnail = nil
            thumbnailFailure = "no thumbnail of the cover: \(error)"
        }
        stored = Self.columns(cover: raster, type: type, source: source, thumbnail: thumbnail)
    }

    /// The cover drawn for a book without one.
    static func generated(title: String, authors: [String]) throws -> CoverImages {
        CoverImages(raster: try GeneratedCover.make(title: title, authors: authors), type: "image/jpeg", source: .generated)
    }

    /// An operator's cover, validated as strictly as a book's own: a raster image by its bytes, one that libvips can
    /// read and scale (not too many pixels, not damaged). Throws a 4xx problem otherwise.
    static func uploaded(_ data: Data) throws -> CoverImages {
        guard let type = RasterImage.type(of: data) else {
            throw Problem(
                status: 415,
                slug: "unsupported-image",
                title: "Unsupported Media Type",
                detail: "A cover must be a JPEG, PNG, GIF or WebP image"
            )
        }
        do {
            return CoverImages(raster: data, type: type, thumbnail: try CoverThumbnail.make(from: data), source: .uploaded)
        } catch {
            throw Problem(
                status: 422,
                slug: "unreadable-image",
                title: "Unprocessable Content",
                detail: "The image cannot be used as a cover: \(error)"
            )
        }
    }

    private init(raster: Data, type: String, thumbnail: CoverThumbnail?, source: CoverSource) {
        self.cover = raster
        self.type = type
        self.thumbnail = thumbnail
        self.source = source
        thumbnailFailure = nil
        stored = Self.columns(cover: raster, type: type, source: source, thumbnail: thumbnail)
    }

    /// The columns naming the blobs (each hashed once, when the images are made).
    let stored: StoredImages

    /// The blobs' hashes, to lock before writing them.
    var hashes: [String] { [stored.coverSHA256, stored.thumbnailSHA256].compactMap { $0 } }

    private static func columns(cover: Data, type: String, source: CoverSource, thumbnail: CoverThumbnail?) -> StoredImages {
        StoredImages(
            coverSHA256: BlobHash.of(cover),
            coverType: type,
            coverSource: source,
            thumbnailSHA256: thumbnail.map { BlobHash.of($0.data) },
            thumbnailType: thumbnail?.type
        )
    }

    func write(to blobs: any BlobStore) async throws {
        _ = try await blobs.put(cover)
        if let thumbnail { _ = try await blobs.put(thumbnail.data) }
    }
}
