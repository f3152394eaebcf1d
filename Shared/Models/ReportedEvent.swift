import Foundation

/// Request of `POST /internal/patrons/{id}/books/{bookId}/events`: an event catalog saw (a download).
public struct ReportedEvent: Codable, Sendable {
    public var event: BookEvent

    public init(event: BookEvent) { self.event = event }
}
