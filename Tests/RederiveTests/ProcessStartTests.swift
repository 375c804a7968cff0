import Foundation
import Glibc
import Rederive
import Testing

/// A lease names its process by host, pid and start: a pid that runs a process started at another
/// time is a pid given again, and its process has ended; a start of another boot or pid namespace
/// names a process whose pid is not this machine's to look up.
@Suite("Process start")
struct ProcessStartTests {
    @Test func aPidGivenToALaterProcessHasEndedAndOneOfAnotherMachineNever() throws {
        let start = try #require(ProcessStart.current, "this machine does not say when a process started")
        #expect(ProcessStart(start.description) == start)
        let host = WorkerIdentity.thisHost
        #expect(WorkerIdentity.current.start == start)
        #expect(!WorkerIdentity(host: host, processID: getpid(), start: start).hasEndedOnThisHost)
        let earlier = ProcessStart(bootID: start.bootID, pidNamespace: start.pidNamespace, ticks: start.ticks - 1)
        #expect(WorkerIdentity(host: host, processID: getpid(), start: earlier).hasEndedOnThisHost)

        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        #expect(WorkerIdentity(host: host, processID: ended.processIdentifier, start: start).hasEndedOnThisHost)
        for elsewhere in [
            ProcessStart(bootID: "another-boot", pidNamespace: start.pidNamespace, ticks: start.ticks),
            ProcessStart(bootID: start.bootID, pidNamespace: "pid:[1]", ticks: start.ticks),
        ] {
            #expect(!WorkerIdentity(host: host, processID: ended.processIdentifier, start: elsewhere).hasEndedOnThisHost)
            #expect(!WorkerIdentity(host: host, processID: getpid(), start: elsewhere).hasEndedOnThisHost)
        }
    }
}
