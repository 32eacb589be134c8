import Foundation
import MapbookTestSupport
import Testing

extension PortalClientTests {
    /// A portal with alice signed in, and the Naperville sample built (5 MB) to publish.
    func withNapervilleOnPortal(_ body: (PortalServerProcess, String, String) throws -> Void) throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let sample = try NapervilleSample.project()
            defer { sample.remove() }
            let package = dir + "/Naperville.mmpk"
            let built = try MapbookBinary.run(["create", sample.path + "/project.yaml", "-o", package])
            try #require(built.status == 0, "\(built.stderr)")
            try body(server, home, package)
        }
    }

    /// `portal download` of the Naperville sample (5 MB) killed with SIGKILL at 20 moments
    /// chosen by the bytes it has written: never a package under the final name, the bytes
    /// so far kept to resume from, and the next run resumes and ends with the published bytes.
    @Test func aDownloadKilledAtTwentyMomentsResumesAndEndsWhole() throws {
        try withNapervilleOnPortal { server, home, package in
            let id = try #require(try publish(package, home: home)["itemId"] as? String)
            let arguments = ["portal", "download", id]
            let environment = ["MAPBOOK_HOME": home]
            let final = home + "/downloads/\(id).mmpk", partial = home + "/downloads/\(id).partial"

            let whole = try CrashSafetyTests.runWatching(arguments, environment: environment)
            try #require(whole.status == 0 && FileManager.default.fileExists(atPath: final), "\(whole)")
            #expect(try sha256(final) == (try sha256(package)))
            // Forget it (the record and the file) and download again, killed along the way.
            try FileManager.default.removeItem(atPath: final)
            try FileManager.default.removeItem(atPath: home + "/downloads/\(id).json")
            var kept: [Int] = []
            for k in 1...20 {
                // Each run resumes, so it writes less than the whole: the moments are fractions
                // of what is left, spread from the start of the run to its end.
                let left = Int64(try readFile(package).count - ((try? readFile(partial))?.count ?? 0))
                let at = max(1, left * Int64(k) / 21 / 2)
                let killed = try CrashSafetyTests.kill(arguments, environment: environment, afterWriting: at)
                #expect(killed, "the download ended before writing \(at) bytes (moment \(k))")
                #expect(!FileManager.default.fileExists(atPath: final), "a package under the final name after a kill at \(at) bytes")
                kept.append((try? readFile(partial))?.count ?? 0)
            }
            // The bytes kept only grow: each run went on from the last.
            #expect(kept == kept.sorted() && (kept.last ?? 0) > 0, "\(kept)")
            let resumed = try mapbook(["portal", "download", id, "--json"], home: home)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let record = try jsonObject(resumed.stdout)
            #expect(((record["resumedFrom"] as? NSNumber)?.intValue ?? 0) > 0, "\(record) \(resumed.stderr) kept \(kept) etag \(String(describing: try? String(contentsOfFile: home + "/downloads/\(id).etag", encoding: .utf8)))")
            #expect(try sha256(final) == (try sha256(package)))
            #expect(!FileManager.default.fileExists(atPath: partial))
        }
    }
}

extension PortalClientTests {
    /// `portal publish` of the Naperville sample, whole and in parts, killed with SIGKILL at
    /// 20 moments each, chosen by the bytes it has sent: the owner never sees a half item (at
    /// most the one item of the package, whole: a run killed after its last byte may have been
    /// stored, and a later run updates that item), and the next run publishes it whole.
    @Test func aPublishKilledAtTwentyMomentsLeavesNoHalfItemAndTheNextRunPublishes() throws {
        try withNapervilleOnPortal { server, home, package in
            let size = try readFile(package).count
            for (mode, extra) in [("whole", [String]()), ("in parts", ["--part-size", "1000000"])] {
                let arguments = ["portal", "publish", package] + extra
                for k in 1...20 {
                    let at = Int64(size) * Int64(k) / 21
                    let killed = try CrashSafetyTests.kill(arguments, environment: ["MAPBOOK_HOME": home], afterWriting: at)
                    #expect(killed, "\(mode): publish ended before sending \(at) bytes (moment \(k))")
                    let found = try jsonArray(try mapbook(["portal", "search", "--owner", "alice", "--json"], home: home).stdout)
                    #expect(found.count <= 1 && found.allSatisfy { ($0["size"] as? NSNumber)?.intValue == size }, "\(mode): after a kill at \(at) bytes: \(found.map { ($0["id"] ?? "", $0["size"] ?? "") })")
                }
                let published = try mapbook(arguments + ["--json"], home: home)
                #expect(published.status == 0, "\(mode): \(published.stderr)")
                let items = try jsonArray(try mapbook(["portal", "search", "--owner", "alice", "--json"], home: home).stdout)
                #expect(items.count == 1, "\(mode): \(items.count) items")
                let id = try #require(items.first?["id"] as? String)
                try? FileManager.default.removeItem(atPath: home + "/downloads/\(id).mmpk")
                try? FileManager.default.removeItem(atPath: home + "/downloads/\(id).json")
                let download = try mapbook(["portal", "download", id, "--json"], home: home)
                #expect(try jsonObject(download.stdout)["sha256"] as? String == (try sha256(package)), "\(mode): \(download.stderr)")
            }
        }
    }
}
