import Rederive
import RederiveCLI
import RoomScan
import RoomScanGenerator

/// The `rederive` executable: the command line with the built-in RoomScan pipeline.
let roomScanSamples = SampleSource(
    pipeline: RoomScan.pipeline.name,
    make: { seed, index in RoomScanGenerator(seed: seed).scan(at: index) },
    makeBroken: { seed, index in RoomScanGenerator(seed: seed).brokenScan(at: index) }
)

await RederiveCommand.main(pipelines: [RoomScan.pipeline], samples: [roomScanSamples])
