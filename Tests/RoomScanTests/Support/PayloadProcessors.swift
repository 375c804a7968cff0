import Rederive
import RoomScan

extension RoomScan {
    /// Indices of the processors that read the payload: those a payload that does not decode fails
    /// with kind `decoding`. The others fail with kind `upstream`.
    static var payloadProcessors: [Int] {
        processors.indices.filter { processors[$0].readsPayload }
    }
}
