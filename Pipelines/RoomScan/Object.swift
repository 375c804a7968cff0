extension CapturedRoom {
    /// A detected piece of furniture or appliance.
    public struct Object: Sendable, Hashable {
        /// What the object is: the single key of the export's `category` object, so
        /// `{"storage":{}}` is `storage`.
        public var category: String

        /// An object of the given category.
        public init(category: String) {
            self.category = category
        }
    }
}
