/// A value that is not `Sendable` (ZIPFoundation's `Archive`) handed from one task or thread to another, which alone
/// uses it from then on: the hand-over is the only moment two of them hold it.
struct HandedOver<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
