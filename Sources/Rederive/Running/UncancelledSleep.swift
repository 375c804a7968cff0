import Dispatch

/// Waits `duration` whether or not the task is cancelled: a cancelled task's own sleeps end at once,
/// and a cancelled run still pauses between the commits of what it derived.
func sleepEvenIfCancelled(for duration: Duration) async {
    let nanoseconds = Int(min(max(0, duration.secondsValue) * 1e9, Double(Int.max / 2)))
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            continuation.resume()
        }
    }
}
