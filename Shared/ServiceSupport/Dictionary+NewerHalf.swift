extension Dictionary {
    /// The entries newer than the middle one by `age` (larger is newer), at most half: what a full map keeps, so that
    /// whoever fills it pushes out old entries, never every entry at once (unless all are of one age). Sorting costs
    /// n log n once per n / 2 new entries.
    public func newerHalf<Age: Comparable>(by age: (Value) -> Age) -> Self {
        guard !isEmpty else { return self }
        let middle = values.map(age).sorted()[count / 2]
        return filter { age($0.value) > middle }
    }
}
