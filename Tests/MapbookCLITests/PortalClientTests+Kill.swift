import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

extension PortalClientTests {
    /// `portal download` of the Naperville sample (5 MB) killed with SIGKILL at 20 moments
    /// chosen by the bytes it has written: never a package under the final name, the bytes
    /// so far kept to resume from, and the next run resumes and ends with the published bytes.
    @Test func aDownloadKilledAtTwentyMomentsResumesAndEndsWhole() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let sample = try NapervilleSample.project()
            defer { sample.remove() }
            let package = dir + "/Naperville.mmpk"
            let built = try MapbookBinary.run(["create", sample.path + "/project.yaml", "-o", package])
            try #require(built.status == 0, "\(built.stderr)")
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
