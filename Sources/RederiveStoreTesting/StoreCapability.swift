/// What a store may offer beyond a run, and the checks that hold it to it: a store that does not
/// offer one leaves out the checks that need it (``StoreCheck/capability``).
public enum StoreCapability: String, Sendable, CaseIterable {
    /// Pauses and cancels stored for other processes to see: `RecordStore/runControl` is not nil.
    case runControl
    /// Projections kept beside the payloads: `RecordStore/projectionStore` is not nil, and the
    /// fixture can overwrite one (``StoreFixture/overwriteProjection``).
    case projections
    /// What a process that derives continuously needs: `RecordStore/changeSignaling` is not nil.
    case changeSignals
}
