import MapbookLibrary
import MapbookRender
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookTerminal

/// The viewer's screens and how keys move among them, run on a model of a terminal
/// (`ViewerDriver`): the library, a package's maps, a map, the keys, Esc back down the stack.
@Suite struct ScreenStackTests {
    typealias Key = ViewerDriver.Key

    // MARK: - Esc

    /// Esc on a map of a package of several maps opened by path: its maps, then the library,
    /// which lists the package so that Enter opens it again.
    @Test func escapeFromAMapGoesToItsPackagesMapsThenToTheLibraryThatListsIt() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: try TestPackages.makePackage(in: dir))
            #expect(viewer.terminal.statusLine.contains("First Map │ 1:"), "\(viewer.terminal.text)")
            viewer.press(Key.escape)
            let maps = viewer.terminal
            #expect(maps.lines[0].contains("Sample Package: 2 maps"), "Esc on the map showed \(maps.text)")
            // The map shown before is the one chosen.
            #expect(maps.cells(of: "1. First Map")?.allSatisfy(\.style.reverse) == true, "\(maps.text)")
            #expect(maps.cells(of: "2. Second Map")?.contains { $0.style.reverse } == false)

            viewer.press(Key.escape)
            let library = viewer.terminal.lines
            #expect(library.contains { $0.contains("Opened from its path") }, "\(library)")
            #expect(library.contains { $0.trimming(" ") == "Sample Package" }, "\(library)")

            viewer.press(Key.enter)
            #expect(viewer.terminal.lines[0].contains("Sample Package: 2 maps"), "Enter on the package: \(viewer.terminal.text)")
            viewer.press(Key.down, Key.enter)
            #expect(viewer.terminal.statusLine.contains("Second Map │ 1:"), "\(viewer.terminal.text)")
            viewer.press("q")
            #expect(!viewer.isRunning)
        }
    }

    /// A package of one map opened by path: Esc goes to the library, which lists it, and
    /// Enter opens its map again.
    @Test func escapeFromTheOnlyMapGoesToTheLibraryThatListsThePackage() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: try TestMaps.trees(in: dir))
            viewer.press(Key.escape)
            let listed = viewer.terminal.lines
            #expect(listed.contains { $0.contains("No sideloaded packages") }, "the library itself is empty: \(listed)")
            #expect(listed.contains { $0.trimming(" ") == "Screen Test" }, "\(listed)")
            #expect(listed.contains { $0.contains("1 map") && $0.contains("KiB") }, "\(listed)")

            viewer.press(Key.enter)
            #expect(viewer.terminal.statusLine.contains("Trees │ 1:"), "Enter on the package: \(viewer.terminal.text)")
        }
    }

    /// A package opened by path that the library holds (a copy of it) is listed once, as the
    /// library's.
    @Test func aPackageInTheLibraryIsNotListedTwice() throws {
        try withTemporaryDirectory { dir in
            let context = ViewerDriver.context(home: dir + "/home")
            let package = try TestMaps.trees(in: dir)
            _ = try context.library.addSideloaded(package)
            let viewer = try ViewerDriver(context: context, package: package)
            viewer.press(Key.escape)
            let listed = viewer.terminal.lines
            #expect(listed[0].contains("Device mode: 1 sideloaded package"), "\(listed)")
            #expect(listed.filter { $0.trimming(" ") == "Screen Test" }.count == 1, "\(listed)")
            #expect(!listed.contains { $0.contains("Opened from its path") }, "\(listed)")
        }
    }

    /// The library chooses with the arrows: the chosen package's title in reverse video.
    @Test func theLibraryChoosesWithTheArrows() throws {
        try withTemporaryDirectory { dir in
            let context = ViewerDriver.context(home: dir + "/home")
            _ = try context.library.addSideloaded(try TestMaps.trees(in: dir))
            _ = try context.library.addSideloaded(try TestPackages.makePackage(in: dir))
            let viewer = try ViewerDriver(context: context)
            let titles = ["Screen Test", "Sample Package"]
            func chosen() -> [String] { titles.filter { viewer.terminal.cells(of: $0)?.allSatisfy(\.style.reverse) == true } }
            #expect(viewer.terminal.lines[0].contains("Device mode: 2 sideloaded packages"), "\(viewer.terminal.text)")
            let first = chosen()
            #expect(first.count == 1, "\(viewer.terminal.text)")
            viewer.press(Key.down)
            #expect(chosen().count == 1 && chosen() != first, "\(viewer.terminal.text)")
            viewer.press(Key.up)
            #expect(chosen() == first)
        }
    }

    /// A terminal that goes away (its window closed) ends the viewer rather than leaving it
    /// reading nothing for ever.
    @Test func aTerminalThatGoesAwayEndsTheViewer() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"))
            #expect(viewer.isRunning)
            viewer.terminal.hangUp = true
            #expect(!viewer.wait(seconds: 5) { _ in false })
            #expect(!viewer.isRunning)
        }
    }

    // MARK: - Pop-ups

    /// The pop-up of an editable layer's feature offers e and x; one of a layer without an
    /// edit schema does not, and its e says why.
    @Test func popUpsOfferEditAndDeleteOnlyOnEditableLayers() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: try TestMaps.trees(in: dir))
            let screen = try #require(viewer.screen as? MapScreen)
            func footer(_ title: String) throws -> String {
                let layer = try #require(screen.map.layers.first { $0.title == title })
                let popup = try #require(try screen.map.popup(layer: layer, featureID: 1)?.popup)
                screen.panel = .popups([popup], index: 0, top: 0)
                viewer.loop.draw()
                let lines = viewer.terminal.lines
                return lines[lines.count - 2]
            }
            let trees = try footer("Street Trees")
            #expect(trees.contains("e edit · x delete · Esc close"), "\(trees)")
            let stumps = try footer("Stumps")
            #expect(stumps.contains("Esc close") && !stumps.contains("e edit") && !stumps.contains("x delete"), "\(stumps)")
            viewer.press("e")
            #expect(viewer.terminal.statusLine.contains("'Stumps' is not editable"), "\(viewer.terminal.statusLine)")
        }
    }

    // MARK: - Keys

    /// Every key's description whole on a wide terminal (the longest passes 160 columns); on
    /// a narrow one, wrapped within its width, and what does not fit is reached with ↓; any
    /// other key goes back to the map.
    @Test(arguments: [(columns: 160, rows: 60), (columns: 200, rows: 60), (columns: 50, rows: 24)])
    func theKeysWrapToTheTerminalsWidth(columns: Int, rows: Int) throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(
                context: ViewerDriver.context(home: dir + "/home"), package: try TestMaps.trees(in: dir), columns: columns, rows: rows)
            viewer.press("?")
            #expect(viewer.terminal.lines[0].contains("Mapbook: the keys"))
            var seen: [String] = []
            var previous: [String] = []
            for _ in 0..<40 {
                let lines = viewer.terminal.lines
                if lines == previous { break }
                seen += lines.dropLast()
                previous = lines
                guard viewer.screen is HelpScreen else { break }
                viewer.press(Key.down)
            }
            let text = seen.joined(separator: " ").split(separator: " ").joined(separator: " ")
            for section in HelpScreen.sections {
                for (_, what) in section.keys {
                    #expect(text.contains(what.split(separator: " ").joined(separator: " ")), "\(columns) columns: '\(what)' is not whole")
                }
            }
            #expect(HelpScreen.lines(width: columns).allSatisfy { $0.text.count <= columns })
            if viewer.screen is HelpScreen { viewer.press("x") }
            #expect(viewer.terminal.statusLine.contains("Trees │ 1:"), "any key goes back: \(viewer.terminal.statusLine)")
        }
    }

    // MARK: - NO_COLOR

    /// Without colour, the map is not a silhouette: the park's fill is shaded, the path and
    /// the trees are shapes, the background is blank, and no colour is sent.
    @Test func withoutColourTheMapIsDrawnInShapesAndShades() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home", mode: .noColor), package: try TestMaps.trees(in: dir))
            let colored = viewer.terminal.frame.joined().filter { $0.style.foreground != .standard || $0.style.background != .standard }
            #expect(colored.isEmpty, "colour sent under NO_COLOR: \(colored.prefix(3))")
            let map = viewer.terminal.lines.dropLast().joined()
            func count(_ kind: (Character) -> Bool) -> Int { map.filter(kind).count }
            let blank = count { $0 == " " }
            let solid = count { $0 == "█" }
            let shaded = count { "░▒▓".contains($0) }
            let shapes = count { c in c.unicodeScalars.first.map { (0x1FB00...0x1FB3B).contains($0.value) || "▌▐·".unicodeScalars.contains($0) } ?? false }
            #expect(blank > map.count / 2, "the background is blank: \(blank) of \(map.count)")
            #expect(solid < map.count / 20, "a silhouette: \(solid) solid cells of \(map.count)")
            #expect(shaded > 50, "the park is shaded: \(shaded) cells")
            #expect(shapes > 20, "the path and the trees are shapes: \(shapes) cells")
        }
    }

    // MARK: - Labels

    /// Drawn as symbols, the trees' names are text on the map's cells; drawn as an image
    /// (kitty), they are in its pixels.
    @Test func labelsAreTextOverAPictureOfSymbols() throws {
        try withTemporaryDirectory { dir in
            let package = try TestMaps.trees(in: dir)
            for mode in [TerminalPicture.Mode.colors256, .noColor, .trueColor] {
                let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home", mode: mode), package: package)
                let lines = viewer.terminal.lines
                for name in ["oak", "elm", "ash"] {
                    #expect(lines.dropLast().contains { $0.contains(name) }, "\(mode): no '\(name)' on the map: \(lines.joined(separator: "\n"))")
                }
            }
            let kitty = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home", mode: .kitty), package: package)
            #expect(kitty.terminal.images > 0)
            #expect(!kitty.terminal.lines.dropLast().contains { $0.contains("elm") })
        }
    }
}
