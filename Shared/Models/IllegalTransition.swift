/// Refusal of an event that the current state does not allow.
public struct IllegalTransition: Error, Equatable, Sendable {
    public let state: BookState
    public let event: BookEvent
    public init(state: BookState, event: BookEvent) {
        self.state = state
        self.event = event
    }
    public var allowedEvents: [BookEvent] { BookMachine.allowedEvents(from: state) }
}
