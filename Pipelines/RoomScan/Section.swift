extension CapturedRoom {
    /// A labelled part of the scanned space, such as `livingRoom` or `kitchen`.
    public struct Section: Sendable, Hashable {
        /// The room type RoomPlan recognised, as written in the export.
        public var label: String

        /// A section with the given label.
        public init(label: String) {
            self.label = label
        }
    }
}
