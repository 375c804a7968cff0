import Rederive

/// What every command sees of a store: the runner's interface, reports, administration, reading what
/// is stored for previews and verification, importing and exporting payloads, the pauses and
/// cancels that hold or end runs, and the health signals their throttles read. Nothing of its own:
/// a store that implements these public protocols can be opened by the command line, through a
/// ``StoreOpener`` registered with ``StoreFactory``.
public typealias CommandStore = RecordStore & StoreReporting & StoreAdministration & StoredValueReading & VerificationSource
    & PayloadImporting & PayloadExporting & RunControlling & HealthSignals
