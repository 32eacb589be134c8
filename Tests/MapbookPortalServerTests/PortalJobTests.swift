import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookPortalServer

/// Background jobs (map areas taken offline, issue 33) kept in both stores, and what happens
/// to a job whose process stopped: with a store of its own the next start fails every
/// unfinished job; with a shared store only those whose heartbeat has stopped, so another
/// process's running job is left alone.
@Suite struct PortalJobTests {
    @Test(PostgresServer.required)
    func jobsOfAStoppedProcessAreFailedAtTheNextStart() async throws {
        try await withTemporaryDirectory { dir in
            let stores: [any PortalStore] = [
                try SQLitePortalStore(path: dir + "/portal.sqlite"), try await PostgresPortalStore.connect(try PostgresServer.database(), patience: .seconds(60)),
            ]
            for store in stores {
                let now = TokenService.now()
                var running = JobRecord(id: TokenService.newId(), owner: "alice", parameters: ["itemId": .string("abc")], now: now)
                running.status = .executing
                running.messages = ["Read the feature service's data."]
                var stale = running
                stale.id = TokenService.newId()
                stale.modified = now - Portal.jobStaleAfter - 1000
                var old = running
                old.id = TokenService.newId()
                old.status = .succeeded
                old.resultItemId = TokenService.newId()
                old.modified = now - Portal.jobKeptFor - 1000
                for job in [running, stale, old] { try await store.saveJob(job) }
                #expect(try await store.job(running.id) == running)

                // Shared: the live job stays, the silent one fails, the week-old one goes.
                #expect(try await Portal.sweepJobs(store: store, shared: true) == 1)
                #expect(try await store.job(running.id)?.status == .executing)
                let failed = try #require(try await store.job(stale.id))
                #expect(failed.status == .failed && failed.messages.count == 2)
                #expect(try await store.job(old.id) == nil)
                // A store of its own: nothing else can be running it.
                #expect(try await Portal.sweepJobs(store: store, shared: false) == 1)
                #expect(try await store.job(running.id)?.status == .failed)
                for job in try await store.jobs() { try await store.deleteJob(job.id) }
            }
        }
    }
}
