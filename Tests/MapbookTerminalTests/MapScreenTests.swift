import MapbookLibrary
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import MapbookViewer
import Testing

@testable import MapbookTerminal

/// The map screen as a field user goes through it, run on a model of a terminal
/// (`ViewerDriver`): zoom and pan, the panels on the Naperville sample, directions, the
/// package's other maps, resizes, and the banner of a package past its date.
@Suite struct MapScreenTests {
    typealias Key = ViewerDriver.Key

    /// + and - halve and double the scale; the arrows move the centre a quarter of the view.
    @Test func zoomAndPanMoveTheView() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: try TestMaps.trees(in: dir))
            let start = try #require(viewer.scale, "no status line: \(viewer.terminal.text)")
            viewer.press("+")
            #expect(viewer.scale.map { abs($0 - start / 2) < 1 } == true, "after +: \(viewer.terminal.statusLine)")
            viewer.press("-", "-")
            #expect(viewer.scale.map { abs($0 - start * 2) < 1 } == true, "after - -: \(viewer.terminal.statusLine)")
            let screen = try #require(viewer.screen as? MapScreen)
            let before = screen.center
            let status = viewer.terminal.statusLine
            viewer.press(Key.left)
            #expect(screen.center.x < before.x && screen.center.y == before.y)
            #expect(viewer.terminal.statusLine != status, "the centre shown did not move: \(viewer.terminal.statusLine)")
            viewer.press(Key.up)
            #expect(screen.center.y > before.y)
            // The mouse wheel zooms too.
            let scale = try #require(viewer.scale)
            viewer.press("\u{1B}[<64;10;10M")
            #expect(viewer.scale.map { abs($0 - scale / 2) < 1 } == true, "after the wheel: \(viewer.terminal.statusLine)")
        }
    }

    /// Resized, the map is drawn again at the new size; too small, it says so; large enough
    /// again, the map comes back.
    @Test func theMapFollowsTheTerminalsSize() throws {
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: try TestMaps.trees(in: dir))
            viewer.resize(columns: 70, rows: 20)
            #expect(viewer.terminal.lines.count == 20 && viewer.terminal.statusLine.count == 70)
            #expect(viewer.terminal.statusLine.hasSuffix("…") && viewer.scale != nil, "\(viewer.terminal.statusLine)")
            viewer.resize(columns: 15, rows: 4)
            #expect(viewer.terminal.lines.joined().contains("Too small to draw a map (15 x 4)"), "\(viewer.terminal.text)")
            viewer.resize(columns: 90, rows: 25)
            #expect(viewer.scale != nil && viewer.terminal.statusLine.count == 90, "\(viewer.terminal.frames) \(viewer.terminal.unknown) \(viewer.terminal.lines)")
        }
    }

    /// A package past its date that may still be used opens under a banner in white on red.
    @Test func anExpiredPackageOpensUnderABanner() throws {
        try withTemporaryDirectory { dir in
            let package = try TestMaps.trees(in: dir, expiration: "{ date: 2020-01-01, type: allowExpiredAccess, message: Ask GIS for a new copy }")
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: package)
            let banner = viewer.terminal.lines[0]
            #expect(banner.contains("⚠ 'Screen Test' expired on 2020-01-01: Ask GIS for a new copy"), "\(banner)")
            let cells = try #require(viewer.terminal.cells(of: "Ask GIS", row: 0))
            #expect(cells.allSatisfy { $0.style.background == .indexed(1) && $0.style.foreground == .indexed(15) && $0.style.bold }, "\(cells.first?.style as Any)")
            #expect(viewer.scale != nil)
        }
    }

    /// A package past its date that must not be used does not open.
    @Test func aPackageThatMustNotBeUsedAnyMoreIsRefused() throws {
        try withTemporaryDirectory { dir in
            let package = try TestMaps.trees(in: dir, expiration: "{ date: 2020-01-01, type: preventExpiredAccess, message: Ask GIS for a new copy }")
            #expect(throws: PackageExpiredError.self) { try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: package) }
        }
    }

    // MARK: - The panels on the Naperville sample

    /// Layers turned off and kept, the legend, a bookmark, search typed a character at a time
    /// to a pop-up, identify, a click, the keys, another map, and back to the maps and the library.
    @Test func theMapsPanelsOnTheNapervilleSample() throws {
        let package = try TestMaps.naperville.get()
        try withTemporaryDirectory { dir in
            let context = ViewerDriver.context(home: dir + "/home")
            let viewer = try ViewerDriver(context: context, package: package)
            #expect(viewer.terminal.statusLine.contains("811 Map"), "\(viewer.terminal.statusLine)")

            // t: the layers, top first; space hides the chosen one and the map is drawn again.
            viewer.press("t")
            #expect(viewer.panel.prefix(4) == ["Layers", "[x] Address Points", "[x] Water Mains", "[x] Water Lateral Lines"], "\(viewer.panel)")
            let frames = viewer.terminal.frames
            viewer.press(Key.down, " ")
            #expect(viewer.panel.contains("[ ] Water Mains"), "\(viewer.panel)")
            #expect(viewer.terminal.frames == frames + 2)
            // Kept on this device, as `mapbook toc` reads it.
            let kept = try MapSession(path: package, library: context.library).map(named: nil)
            #expect(kept.layers.first { $0.title == "Water Mains" }?.isVisible == false)

            // l: the legend of the layers shown: the mains are hidden, the laterals' classes listed.
            viewer.press("l")
            #expect(viewer.panel.first == "Legend")
            #expect(viewer.panel.contains { $0.hasSuffix("Copper") } && !viewer.panel.contains("Water Mains"), "\(viewer.panel)")
            // A swatch in the class's colour before its label.
            let copper = try #require(viewer.terminal.lines.firstIndex { $0.contains("Copper") })
            let swatch = viewer.terminal.frame[copper][(viewer.panelBorder + 1)...]
            #expect(swatch.contains { $0.character != " " && $0.style.foreground != .standard }, "no coloured swatch: \(viewer.terminal.lines[copper])")

            // b: the bookmarks; Enter goes to the chosen one.
            viewer.press("b")
            #expect(viewer.panel.first == "Bookmarks")
            let names = viewer.panel.dropFirst().prefix { !$0.isEmpty }
            #expect(names.count >= 2, "\(viewer.panel)")
            viewer.press(Key.enter)
            #expect(viewer.terminal.statusLine.contains("at '\(names.first ?? "")'"), "\(viewer.terminal.statusLine)")

            // /: suggestions for every character typed.
            viewer.press("/")
            #expect(viewer.panel.first == "Search")
            var typed = ""
            var lists: [[String]] = []
            for character in "31 S Wa" {
                typed.append(character)
                viewer.type(String(character))
                let find = "Find: \(typed)▏"
                let lines = viewer.panel
                #expect(lines.contains(find), "after '\(find)': \(lines)")
                let suggestions = Array(lines.drop { !$0.hasPrefix("Find:") }.dropFirst().prefix { !$0.isEmpty && !$0.hasPrefix("type ·") })
                #expect(!suggestions.isEmpty && suggestions != ["no matches"], "no suggestions after '\(find)': \(lines)")
                lists.append(suggestions)
            }
            #expect(lists.last?.first == "31 S Washington St", "\(lists.last ?? [])")
            #expect(Set(lists.map { $0.joined(separator: "|") }).count > 2, "the suggestions did not follow the typing: \(lists)")
            // Esc closes the search and q is a key again; / opens it afresh.
            viewer.press(Key.escape)
            #expect(viewer.panel.first != "Search", "Esc did not close the search: \(viewer.panel)")
            viewer.press("/")
            #expect(viewer.panel.contains("Find: ▏"), "\(viewer.panel)")
            viewer.type("31 S Wa")
            let typing = viewer.terminal.statusLine
            // Keys the search does not use (an arrow across, Tab) leave the map where it is.
            viewer.press(Key.left, Key.down, Key.tab)
            viewer.type("s")
            #expect(viewer.panel.contains("Find: 31 S Was▏"), "\(viewer.panel)")
            #expect(viewer.terminal.statusLine == typing, "a key typed in the search moved the map")
            viewer.press(Key.backspace)
            #expect(viewer.panel.contains("Find: 31 S Wa▏"), "\(viewer.panel)")
            // Enter: the map goes there and the feature's pop-up opens, its place marked.
            viewer.press(Key.enter)
            #expect(viewer.panel.first == "Pop-up", "\(viewer.panel)")
            #expect(viewer.panel.contains("Address: 31 S Washington St"), "\(viewer.panel)")
            #expect(viewer.terminal.statusLine.contains("1:2,500"), "\(viewer.terminal.statusLine)")
            #expect(viewer.terminal.cells(of: "✛")?.first?.style.background == .indexed(1), "the place found is not marked")

            // i: identify at the centre, the address and what lies under it, one after another.
            viewer.press(Key.escape, "i")
            #expect(viewer.panel.last { $0.contains(" of ") }?.hasPrefix("1 of ") == true, "\(viewer.panel)")
            viewer.press("n")
            #expect(viewer.panel.last { $0.contains(" of ") }?.hasPrefix("2 of ") == true, "\(viewer.panel)")

            // ?: every key on one screen; any key goes back.
            viewer.press(Key.escape, "?")
            let help = viewer.terminal.text
            #expect(help.contains("Mapbook: the keys"))
            for key in ["search: type", "bookmarks", "legend", "identify", "another map"] { #expect(help.contains(key), "\(key): \(help)") }
            viewer.press("x")
            #expect(viewer.scale != nil && !viewer.terminal.text.contains("Mapbook: the keys"))

            // A click (SGR mouse press and release on one cell) identifies where it is made:
            // here the centre cell, where the address found above is.
            viewer.press(Key.click(column: 50, row: 15))
            #expect(viewer.panel.first == "Pop-up", "\(viewer.panel)")
            #expect(viewer.panel.contains("Address: 31 S Washington St"), "\(viewer.panel)")
            viewer.press(Key.escape)
            #expect(viewer.panel.first != "Pop-up")

            // m: the package's maps with their thumbnails; Enter opens another.
            viewer.press("m")
            let maps = viewer.terminal.text
            #expect(maps.contains("Naperville Water Company: 3 maps"), "\(maps)")
            #expect(maps.contains("2. Emergency Response Map") && maps.contains("3. CIP Map"), "\(maps)")
            // A thumbnail is a picture: coloured cells left of the titles, not text.
            let pictureRows = viewer.terminal.frame.filter { row in row.prefix(25).contains { $0.style.background != .standard || $0.style.foreground != .standard } }
            #expect(pictureRows.count >= 12, "no thumbnails: \(maps)")
            viewer.press(Key.down, Key.enter)
            #expect(viewer.terminal.statusLine.contains("Emergency Response Map"), "\(viewer.terminal.statusLine)")

            // Esc: the package's maps again; Esc there: the library, here in device mode with
            // nothing added, listing the package opened by path so that it can be opened again.
            viewer.press(Key.escape)
            #expect(viewer.terminal.text.contains("2. Emergency Response Map"), "\(viewer.terminal.text)")
            viewer.press(Key.escape)
            let library = viewer.terminal.text
            #expect(library.contains("Device mode") && library.contains("No sideloaded packages"), "\(library)")
            #expect(library.contains("Opened from its path") && library.contains("Naperville Water Company"), "\(library)")
            viewer.press("q")
            #expect(!viewer.isRunning)
        }
    }

    // MARK: - Directions

    /// d: the start typed as in search, the map's centre for the destination (Enter on
    /// nothing), then the route drawn and its directions listed; d closes the panel.
    @Test func directionsFromAnAddressToTheMapsCentre() throws {
        let package = try TestMaps.naperville.get()
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: package)
            let start = try #require(viewer.scale)
            viewer.press("d")
            #expect(viewer.panel.first == "Directions")
            viewer.type("484 W Spring Ave")
            #expect(viewer.panel.contains("From: 484 W Spring Ave▏"), "\(viewer.panel)")
            viewer.press(Key.enter)
            #expect(viewer.panel.contains("To: ▏") && viewer.panel.contains("From: 484 W Spring Ave"), "\(viewer.panel)")
            viewer.press(Key.enter)
            let lines = viewer.panel
            #expect(lines.contains { $0.contains("Arrive at the destination") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("484 W Spring Ave to") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("1. Start heading ") }, "\(lines)")
            // The view is fitted to the route: closer than the whole town.
            #expect((viewer.scale ?? .infinity) < start, "\(viewer.terminal.statusLine)")
            viewer.press("d")
            #expect(viewer.panel.first != "Directions")
        }
    }

    /// Places typed as LON,LAT, as `mapbook route` takes them; the sample forbids the left
    /// turn from Washington St onto Chicago Ave, so the route goes on and comes back.
    @Test func directionsBetweenCoordinatesKeepTheNoLeftTurn() throws {
        let package = try TestMaps.naperville.get()
        try withTemporaryDirectory { dir in
            let viewer = try ViewerDriver(context: ViewerDriver.context(home: dir + "/home"), package: package)
            viewer.press("d")
            viewer.type("-88.1535,41.7499")
            #expect(viewer.panel.contains("From: -88.1535,41.7499▏"), "\(viewer.panel)")
            viewer.press(Key.enter)
            viewer.type("-88.1550,41.7508")
            #expect(viewer.panel.contains("To: -88.1550,41.7508▏"), "\(viewer.panel)")
            viewer.press(Key.enter)
            let lines = viewer.panel
            #expect(lines.contains { $0.hasPrefix("-88.1535,41.7499 to -88.1550,41.7508") }, "\(lines)")
            #expect(lines.contains { $0.contains("Make a U-turn onto N Washington St") }, "\(lines)")
            #expect(!lines.contains { $0.contains("Turn left onto W Chicago Ave") }, "\(lines)")
        }
    }
}
