import Rederive

/// What every command sees of a store: the runner's interface, reports, administration, reading what
/// is stored for previews and verification, and importing and exporting payloads. Nothing of its own:
/// a store that implements these public protocols can be opened by the command line, through a
/// ``StoreOpener`` registered with ``StoreFactory``.
public typealias CommandStore = RecordStore & StoreReporting & StoreAdministration & StoredValueReading & VerificationSource
    & PayloadImporting & PayloadExporting
