import MapbookEditing
import MapbookPackage
import MapbookTestSupport
import MapbookViewer
import Testing

@testable import MapbookTerminal

/// Editing on the map screen, keys as a user presses them, on a model of a terminal
/// (`ViewerDriver`): `e` on a pop-up changes a field (a coded value chosen from its list; a
/// value out of range refused with the reason), `a` adds a tree at the centre once its
/// required field is set, `x` then `y` deletes one; each is a pending edit of the working
/// copy, as `mapbook edit` makes them.
@Suite struct MapScreenEditTests {
    typealias Key = ViewerDriver.Key

    @Test func featuresAreEditedAddedAndDeletedWithKeys() throws {
        try withTemporaryDirectory { dir in
            let package = try TestMaps.editableTrees(in: dir)
            let context = ViewerDriver.context(home: dir + "/home")
            let viewer = try ViewerDriver(context: context, package: package, columns: 120, rows: 36)
            // The centre of the three trees is the elm.
            viewer.press("i")
            #expect(viewer.panel.contains { $0.contains("e edit · x delete") }, "\(viewer.panel)")
            #expect(viewer.panel.contains { $0.contains("elm") }, "\(viewer.panel)")
            viewer.press("e")
            #expect(viewer.panel.contains("Street Trees · feature 2") && viewer.panel.contains("condition: Fair"), "\(viewer.panel)")
            // dbh out of range: refused, the reason shown.
            viewer.press("j", Key.enter, Key.control("u"))
            viewer.type("900")
            viewer.press(Key.enter)
            #expect(viewer.panel.joined(separator: " ").contains("900 is outside its range, 0 to 300"), "\(viewer.panel)")
            // condition from its list: Fair, then one down is Poor.
            viewer.press("j", Key.enter)
            #expect(viewer.panel.contains("▸ Fair") && viewer.panel.contains("Dead"), "\(viewer.panel)")
            viewer.press("j", Key.enter)
            #expect(viewer.terminal.statusLine.contains("condition set to Poor"), "\(viewer.terminal.statusLine)")
            #expect(viewer.panel.contains { $0.hasPrefix("condition: Poor") }, "\(viewer.panel)")
            viewer.press(Key.escape)
            // A new tree at the centre, named, then added.
            viewer.press("a")
            #expect(viewer.panel.contains("New feature in Street Trees"), "\(viewer.panel)")
            viewer.press(Key.enter)
            viewer.type("yew")
            viewer.press(Key.enter)
            for _ in 0..<12 { viewer.press("j") }
            viewer.press(Key.enter)
            #expect(viewer.terminal.statusLine.contains("added feature 4"), "\(viewer.terminal.statusLine)")
            #expect(viewer.panel.contains("Street Trees · feature 4"), "\(viewer.panel)")
            viewer.press(Key.escape)
            // Identify finds both at the centre; the yew is deleted after y.
            viewer.press("i")
            #expect(viewer.panel.contains { $0.hasPrefix("1 of 2") }, "\(viewer.panel)")
            if !viewer.panel.contains("common: yew") { viewer.press("n") }
            #expect(viewer.panel.contains("common: yew"), "\(viewer.panel)")
            viewer.press("x")
            #expect(viewer.panel.contains { $0.contains("y delete") }, "\(viewer.panel)")
            viewer.press("y")
            #expect(viewer.terminal.statusLine.contains("deleted 'Street Trees'"), "\(viewer.terminal.statusLine)")
            #expect(viewer.terminal.statusLine.contains("mapbook sync sends it"), "\(viewer.terminal.statusLine)")
            viewer.press("q")
            let pending = try DeviceEdits.workingCopy(of: try MobileMapPackage(path: package), library: context.library).pending()
            #expect(pending.map { "\($0.operation) \($0.fid)" } == ["update 2", "insert 4", "delete 4"], "\(pending.map { "\($0.operation) \($0.fid)" })")
        }
    }
}
