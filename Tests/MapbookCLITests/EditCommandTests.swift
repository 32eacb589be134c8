import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// `mapbook edit`: features added, changed, moved and deleted on the working copy in the
/// device library (MAPBOOK_HOME), refusals with exit status 1 and nothing written, the
/// pending edits listed, the copy discarded.
@Suite struct EditCommandTests {
    /// An editable package of three trees in `dir`, built by `mapbook create`.
    func package(_ dir: String) throws -> String {
        let project = try EditableTrees.write(in: dir)
        let created = try MapbookBinary.run(["create", project, "-o", dir + "/trees.mmpk", "--fixed-time", "1700000000"])
        #expect(created.status == 0, "\(created.stderr)")
        return dir + "/trees.mmpk"
    }

    @Test func editsGoToTheWorkingCopyAndAreListed() throws {
        try withTemporaryDirectory { dir in
            let package = try package(dir)
            let before = try Data(contentsOf: URL(fileURLWithPath: package))
            let env = ["MAPBOOK_HOME": dir + "/home", "USER": "ana"]
            func edit(_ arguments: [String]) throws -> MapbookBinary.Result { try MapbookBinary.run(["edit"] + arguments, environment: env) }
            let added = try edit(["add", package, "--layer", "Street Trees", "--at=-122.615,45.515", "--set", "common=maple", "--set", "dbh=4"])
            #expect(added.status == 0 && added.stdout.hasPrefix("insert trees 4 {"), "\(added.stdout) \(added.stderr)")
            #expect(try edit(["update", package, "--layer", "trees", "1", "--set", "condition=dead"]).status == 0)
            #expect(try edit(["move", package, "--layer", "trees", "2", "--at=-122.625,45.525"]).status == 0)
            #expect(try edit(["delete", package, "--layer", "trees", "3"]).status == 0)
            // Refused, naming the field and what is allowed; nothing written.
            let range = try edit(["update", package, "--layer", "trees", "1", "--set", "dbh=900"])
            #expect(range.status == 1 && range.stderr.contains("trees.dbh: 900 is outside its range, 0 to 300"), "\(range.stderr)")
            let domain = try edit(["update", package, "--layer", "trees", "1", "--set", "condition=splendid"])
            #expect(domain.status == 1 && domain.stderr.contains("Good, Fair, Poor, Dead"), "\(domain.stderr)")
            let missing = try edit(["delete", package, "--layer", "trees", "42"])
            #expect(missing.status == 1, "\(missing.stderr)")
            let usage = try edit(["update", package, "--layer", "trees", "1", "--set", "dbh"])
            #expect(usage.status == 64, "\(usage.stderr)")

            let listed = try edit(["edits", package, "--json"])
            let items = try #require(try JSONParser.parse(Array(listed.stdout.utf8)).arrayValue?.compactMap(\.objectValue))
            #expect(items.map { $0.string("operation") ?? "" } == ["insert", "update", "update", "delete"])
            #expect(items.allSatisfy { $0.string("layer") == "trees" && ($0.string("globalid") ?? "").count == 38 })
            // The copy holds the edits, with who made them; the package is as published.
            let copies = try FileManager.default.contentsOfDirectory(atPath: dir + "/home/edits")
            #expect(copies.count == 1)
            let data = try SQLiteDatabase(readOnlyPath: dir + "/home/edits/" + copies[0] + "/data.gpkg")
            let rows = try data.query("SELECT fid, condition, last_edited_user FROM trees ORDER BY fid")
            #expect(rows.map { $0[0].int64 ?? 0 } == [1, 2, 4])
            #expect(rows[0][1] == .text("Dead") && rows[0][2] == .text("ana") && rows[2][1] == .text("Good"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: package)) == before)

            // Every view reads the working copy: identify finds the edited condition, and the
            // new tree where it was added; the deleted one is gone.
            let identified = try MapbookBinary.run(["identify", package, "--at=-122.60,45.50", "--scale", "5000", "--json"], environment: env)
            #expect(identified.status == 0 && identified.stdout.contains("Dead") && !identified.stdout.contains("\"Good\""), "\(identified.stdout) \(identified.stderr)")
            let added4 = try MapbookBinary.run(["identify", package, "--at=-122.615,45.515", "--scale", "5000", "--json"], environment: env)
            #expect(added4.status == 0 && added4.stdout.contains("maple"), "\(added4.stdout) \(added4.stderr)")
            let gone = try MapbookBinary.run(["identify", package, "--at=-122.62,45.52", "--scale", "5000", "--json"], environment: env)
            #expect(!gone.stdout.contains("ash"), "\(gone.stdout)")
            // Another device (another library) sees the package as published.
            let elsewhere = try MapbookBinary.run(["identify", package, "--at=-122.60,45.50", "--scale", "5000", "--json"], environment: ["MAPBOOK_HOME": dir + "/other"])
            #expect(elsewhere.stdout.contains("Good") && !elsewhere.stdout.contains("Dead"), "\(elsewhere.stdout)")

            // An update of the package (built again, its data changed): views ignore the copy
            // made from the old data, and new edits wait until the pending ones are discarded.
            let rebuilt = try MapbookBinary.run(["create", dir + "/project.yaml", "-o", package, "--fixed-time", "1900000000"])
            #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
            let published = try MapbookBinary.run(["identify", package, "--at=-122.60,45.50", "--scale", "5000", "--json"], environment: env)
            #expect(published.stdout.contains("Good") && !published.stdout.contains("Dead"), "\(published.stdout)")
            let waiting = try edit(["update", package, "--layer", "trees", "2", "--set", "dbh=8"])
            #expect(waiting.status == 1 && waiting.stderr.contains("mapbook edit discard"), "\(waiting.stderr)")

            let discarded = try edit(["discard", package])
            #expect(discarded.status == 0 && discarded.stdout.contains("Discarded 4 edits"), "\(discarded.stdout)")
            #expect(try edit(["edits", package]).stdout.contains("No pending edits."))
        }
    }

    /// Every refusal of a first edit leaves the device library as it was; discard removes all
    /// a working copy made, its search index included.
    @Test func aRefusedEditWritesNothingAndDiscardRemovesEverything() throws {
        try withTemporaryDirectory { dir in
            // The trees searchable by name, so search keeps an index of the edited data.
            let project = try EditableTrees.write(in: dir)
            let yaml = try String(contentsOfFile: project, encoding: .utf8).replacingOccurrences(of: "title: Street Trees", with: "title: Street Trees\n    search: common")
            try writeFile(project, yaml)
            let package = dir + "/trees.mmpk"
            #expect(try MapbookBinary.run(["create", project, "-o", package]).status == 0)
            let env = ["MAPBOOK_HOME": dir + "/home"]
            func edit(_ arguments: [String]) throws -> MapbookBinary.Result { try MapbookBinary.run(["edit"] + arguments, environment: env) }
            func editsFolders() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: dir + "/home/edits")) ?? [] }
            let refusals: [[String]] = [
                ["add", package, "--layer", "trees", "--set", "common=oak"],
                ["add", package, "--layer", "trees", "--at=0,0"],
                ["add", package, "--layer", "trees", "--at=45.5,-122.6"],
                ["add", package, "--layer", "trees", "--at=-122.61,45.51", "--set", "condition=Burnt"],
                ["update", package, "--layer", "trees", "99999", "--set", "common=oak"],
            ]
            for arguments in refusals {
                let refused = try edit(arguments)
                #expect(refused.status != 0, "\(arguments): \(refused.stderr)")
                #expect(editsFolders().isEmpty, "\(arguments) left \(editsFolders())")
            }
            let missing = try edit(["update", package, "--layer", "trees", "99999", "--set", "common=oak"])
            #expect(missing.stderr.contains("error: trees: feature 99999"), "\(missing.stderr)")
            #expect(try edit(["add", package, "--layer", "trees", "--at=-122.61,45.51"]).status == 0)
            // The viewers' search reads an index of the edited data, made beside the copy.
            let search = try MapbookBinary.run(["search", package, "oak"], environment: env)
            #expect(search.status == 0, "\(search.stderr)")
            #expect(editsFolders().count == 1)
            #expect(try edit(["discard", package]).status == 0)
            #expect(editsFolders().isEmpty, "discard left \(editsFolders())")
        }
    }

    @Test func aLayerWithoutEditIsRefused() throws {
        try withTemporaryDirectory { dir in
            let package = try package(dir)
            let env = ["MAPBOOK_HOME": dir + "/home"]
            let unknown = try MapbookBinary.run(["edit", "add", package, "--layer", "hydrants", "--at=-122.6,45.5"], environment: env)
            #expect(unknown.status == 1 && unknown.stderr.contains("its layers are: trees"), "\(unknown.stderr)")
        }
    }
}
