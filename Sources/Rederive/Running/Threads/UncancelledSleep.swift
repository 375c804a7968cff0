/// Waits `duration` whether or not the task is cancelled: a cancelled task's own sleeps end at once,
/// and a cancelled run still pauses between the commits of what it derived.
func sleepEvenIfCancelled(for duration: Duration) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        BlockingWork.after(duration) { continuation.resume() }
    }
}
