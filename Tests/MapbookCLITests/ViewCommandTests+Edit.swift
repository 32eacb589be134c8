import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

extension ViewCommandTests {
    /// Editing in `mapbook view`, keys as a user presses them: `e` on a pop-up changes a field
    /// (a coded value chosen from its list; a value out of range refused with the reason),
    /// `a` adds a tree at the centre once its required field is set, `x` then `y` deletes one;
    /// each is a pending edit of the working copy, as `mapbook edit` makes them.
    @Test(tmuxRequired)
    func featuresAreEditedAddedAndDeletedWithKeys() throws {
        try withTemporaryDirectory { dir in
            let project = try EditableTrees.write(in: dir)
            let built = try MapbookBinary.run(["create", project, "-o", dir + "/trees.mmpk", "--fixed-time", "1700000000"])
            try #require(built.status == 0, "\(built.stderr)")
            let window = try Window("MAPBOOK_HOME=\(dir)/home USER=ana \(MapbookBinary.path) view \(dir)/trees.mmpk --terminal-mode 256", columns: 120, rows: 36)
            /// The screen once `condition` holds; an issue naming `what` when it never does.
            func shown(_ what: String, _ condition: (String) -> Bool) throws -> String {
                let screen = try window.wait(seconds: 30, until: condition)
                if !condition(screen) { Issue.record("\(what) never showed: \(screen)") }
                return screen
            }
            _ = try shown("the map") { Self.scale($0) != nil && !$0.contains("drawing") }
            // The centre of the three trees is the elm.
            try window.keys("i")
            let popup = try shown("the pop-up") { $0.contains("e edit · x delete") }
            #expect(popup.contains("elm"), "\(popup)")
            try window.keys("e")
            _ = try shown("the edit panel") { $0.contains("Street Trees · feature 2") && $0.contains("condition: Fair") }
            // dbh out of range: refused, the reason shown.
            try window.keys("j")
            try window.keys("Enter")
            try window.keys("C-u")
            try window.keys("-l", "900")
            try window.keys("Enter")
            let refused = try shown("the refusal") { $0.contains("outside its range") }
            #expect(refused.contains("900 is outside its range, 0 to 300"), "\(refused)")
            // condition from its list: Fair, then one down is Poor.
            try window.keys("j")
            try window.keys("Enter")
            let choices = try shown("the choices") { $0.contains("▸ Fair") }
            #expect(choices.contains("Dead"), "\(choices)")
            try window.keys("j")
            try window.keys("Enter")
            let set = try shown("the change") { $0.contains("condition set to Poor") }
            #expect(set.contains("condition: Poor"), "\(set)")
            try window.keys("Escape")
            // A new tree at the centre, named, then added.
            try window.keys("a")
            _ = try shown("the add panel") { $0.contains("New feature in Street Trees") }
            try window.keys("Enter")
            try window.keys("-l", "yew")
            try window.keys("Enter")
            for _ in 0..<12 { try window.keys("j") }
            try window.keys("Enter")
            let added = try shown("the new tree") { $0.contains("added feature 4") }
            #expect(added.contains("Street Trees · feature 4"), "\(added)")
            try window.keys("Escape")
            // Identify finds both at the centre; the yew is deleted after y.
            try window.keys("i")
            var screen = try shown("two pop-ups") { $0.contains("of 2") }
            if !screen.contains("yew") {
                try window.keys("n")
                screen = try shown("the yew") { $0.contains("yew") }
            }
            #expect(screen.contains("yew"), "\(screen)")
            try window.keys("x")
            _ = try shown("the question") { $0.contains("y delete") }
            try window.keys("y")
            let deleted = try shown("the deletion") { $0.contains("deleted 'Street Trees'") }
            #expect(deleted.contains("mapbook sync sends it"), "\(deleted)")
            try window.keys("q")
            Thread.sleep(forTimeInterval: 0.5)
            let edits = try MapbookBinary.run(["edit", "edits", dir + "/trees.mmpk", "--json"], environment: ["MAPBOOK_HOME": dir + "/home"])
            let items = try #require(try JSONParser.parse(Array(edits.stdout.utf8)).arrayValue?.compactMap(\.objectValue))
            #expect(items.map { "\($0.string("operation") ?? "") \($0.int64("fid") ?? 0)" } == ["update 2", "insert 4", "delete 4"], "\(edits.stdout)")
        }
    }
}
