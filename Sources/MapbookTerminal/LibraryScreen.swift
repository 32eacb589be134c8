import MapbookLibrary
import MapbookPackage
import MapbookPortal
import MapbookPortalAPI
import MapbookSupport
import Synchronization

/// The device library, as the Offline Mapbook app's first screen: in device mode the
/// sideloaded packages; in portal mode the downloaded ones, the portal and the signed-in user,
/// then the portal's packages not downloaded yet. Each package shows its title, summary, size,
/// map count, when it was downloaded, its expiration and an update badge. A package opened by
/// path (`mapbook view PKG`) that the library does not hold is listed after them, so it can
/// be opened again.
///
/// The portal is asked in the background (`PortalWork`): the screen draws at once from what
/// is on the device and the last check kept in the library, and offline it says when that
/// check was made.
final class LibraryScreen: TerminalScreen {
    let context: ViewerContext
    var mode = LibraryMode.device
    var portal: String?
    var user: String?
    var entries: [LibraryEntry] = []
    /// The paths of the packages opened by path in this run.
    let opened: [String]
    /// Those of them the library does not hold, as entries.
    var openedEntries: [LibraryEntry] = []
    /// What each package's manifest says, read once per file.
    var details: [String: Details] = [:]
    var lastCheck: UpdateCheck?
    var selection = 0
    var message: String?
    var loaded = false
    let work = PortalWork()

    struct Details {
        /// The package's GUID, which a copy in the library shares.
        var guid: String?
        var title: String?
        var summary: String?
        var maps: Int
        var expiration: Expiration?
        var problem: String?
    }

    init(context: ViewerContext, opened: [String] = []) {
        self.context = context
        self.opened = opened
    }

    /// Reads the library again (after a download) and starts an update check in portal mode.
    func load(check: Bool = true) {
        loaded = true
        do {
            mode = try context.library.mode()
            portal = try context.library.portalURL()
            user = try context.library.credential()?.username
            entries = try context.library.list()
            lastCheck = try context.library.lastUpdateCheck()
        } catch {
            message = "cannot read the library: \(error)"
        }
        for path in entries.map(\.path) + opened where details[path] == nil {
            do {
                let package = try MobileMapPackage(path: path)
                details[path] = Details(
                    guid: package.manifest.guid.flatMap { $0.isEmpty ? nil : $0 }, title: package.manifest.title,
                    summary: package.manifest.summary ?? package.manifest.description, maps: package.mapEntries.count,
                    expiration: package.manifest.expiration)
            } catch {
                details[path] = Details(maps: 0, problem: "\(error)")
            }
        }
        // A package the library holds (its copy has the same GUID) is listed once, as the library's.
        let held = Set(entries.map(\.path) + entries.compactMap { details[$0.path]?.guid })
        let unheld = opened.filter { !held.contains($0) && !(details[$0]?.guid.map(held.contains) ?? false) }
        openedEntries = unheld.map { path in
            let name = FileSystem.lastComponent(path)
            return LibraryEntry(kind: .sideloaded, name: name, path: path, title: details[path]?.title ?? name, size: FileSystem.size(path) ?? 0)
        }
        if check, mode == .portal, let portal { work.check(portal: portal, context: context) }
    }

    /// The rows the user chooses among: downloaded or sideloaded packages, a package opened
    /// by path and not in the library, then (portal mode) the portal's packages not on the device.
    enum Row {
        case package(LibraryEntry)
        case opened(LibraryEntry)
        case available(PortalItem)
    }

    var rows: [Row] {
        let state = work.snapshot()
        let have = Set(entries.compactMap(\.itemId))
        return entries.map(Row.package) + openedEntries.map(Row.opened) + state.available.filter { !have.contains($0.id) }.map(Row.available)
    }

    func poll() -> Bool {
        let (changed, finished) = work.takeChanges()
        if let finished {
            message = finished
            load(check: false)
        }
        return changed || finished != nil
    }

    func close() { work.cancel() }

    // MARK: - Drawing

    func frame(_ size: TerminalSize) -> String {
        if !loaded { load() }
        let state = work.snapshot()
        let rows = rows
        selection = min(selection, max(rows.count - 1, 0))
        var lines: [TextPanel.Line] = []
        var firstLine: [Int] = []
        let width = max(size.columns - 4, 10)
        if entries.isEmpty {
            lines.append(TextPanel.Line(mode == .device ? "No sideloaded packages: add one with `mapbook library add PKG`." : "No downloaded packages.", dim: true))
        }
        for (i, row) in rows.enumerated() {
            if case .opened = row, i == entries.count {
                lines.append(TextPanel.Line(""))
                lines.append(TextPanel.Line("Opened from its path, not in the library", bold: true))
            }
            if case .available = row, i == entries.count + openedEntries.count {
                lines.append(TextPanel.Line(""))
                lines.append(TextPanel.Line("On the portal, not downloaded", bold: true))
            }
            firstLine.append(lines.count)
            switch row {
            case .package(let entry):
                lines += packageLines(entry, state: state, width: width)
            case .opened(let entry):
                lines += packageLines(entry, state: state, width: width)
                lines.append(TextPanel.Line("  \(entry.path) (mapbook library add keeps it)", dim: true))
            case .available(let item):
                lines.append(TextPanel.Line(item.title + "  [d download]", bold: true))
                if let snippet = item.snippet, !snippet.isEmpty { lines.append(TextPanel.Line("  " + snippet)) }
                lines.append(TextPanel.Line("  \(Format.bytes(item.size)) · by \(item.owner) · modified \(ISODate.formatMinutes(milliseconds: item.modified)) UTC", dim: true))
            }
        }
        var panel = TextPanel(title: header(size), lines: lines, selection: rows.isEmpty ? nil : firstLine[selection], footer: "")
        panel.footer = portalLine(state)
        var out = "\u{1B}[0m\u{1B}[2J" + (context.mode == .kitty ? "\u{1B}_Ga=d\u{1B}\\" : "")
        var height = size.rows - 1
        if let progress = state.progress {
            out += "\u{1B}[\(size.rows - 1);1H" + Self.bar(progress, width: size.columns)
            height -= 1
        }
        out += panel.text(column: 1, row: 1, width: size.columns, height: height, mode: context.mode, border: false)
        let keys = message ?? (mode == .portal ? "↑↓ choose · Enter open · d download · u update · r check · ? keys · q quit" : "↑↓ choose · Enter open · ? keys · q quit")
        return out + "\u{1B}[\(size.rows);1H\u{1B}[7m" + TextPanel.fit(" " + keys, size.columns) + "\u{1B}[0m"
    }

    func header(_ size: TerminalSize) -> String {
        let total = entries.reduce(Int64(0)) { $0 + $1.size }
        switch mode {
        case .device:
            return "Device mode: \(entries.count) sideloaded package\(entries.count == 1 ? "" : "s") (\(Format.bytes(total)))"
        case .portal:
            return "Portal mode: \(portal ?? "no portal")" + (user.map { ", signed in as \($0)" } ?? ", not signed in") + ": \(entries.count) downloaded (\(Format.bytes(total)))"
        }
    }

    /// When updates were last checked, and whether the portal answers now.
    func portalLine(_ state: PortalWork.State) -> String {
        guard mode == .portal, portal != nil else { return "" }
        let when = (state.checkedAt ?? lastCheck?.checkedAt).map { "updates checked \(ISODate.formatMinutes(milliseconds: $0)) UTC" } ?? "updates never checked"
        if state.checking { return "checking the portal for updates… (\(when))" }
        if let problem = state.problem { return "\(problem); \(when)" }
        return when
    }

    func packageLines(_ entry: LibraryEntry, state: PortalWork.State, width: Int) -> [TextPanel.Line] {
        let details = details[entry.path]
        var badge = ""
        if let id = entry.itemId {
            let finding = state.findings[id] ?? lastCheck?.findings[id]
            switch finding {
            case .updateAvailable?: badge = "  [update available: u]"
            case .updateRequired?: badge = "  [update required: u]"
            case .unavailable?: badge = "  [no longer on the portal]"
            case .current?: badge = "  [up to date]"
            case nil: badge = ""
            }
        }
        var lines = [TextPanel.Line(entry.title + badge, bold: true)]
        if let problem = entry.problem ?? details?.problem {
            lines.append(TextPanel.Line("  ! " + problem))
            return lines
        }
        if let summary = details?.summary, !summary.isEmpty {
            lines += TextPanel.wrap(HTMLText.plain(summary, collapsing: true), width: width - 2).prefix(2).map { TextPanel.Line("  " + $0) }
        }
        var facts = [Format.bytes(entry.size), "\(details?.maps ?? 0) map\(details?.maps == 1 ? "" : "s")"]
        if let record = entry.record { facts.append("downloaded \(ISODate.formatMinutes(milliseconds: record.downloadedAt)) UTC") }
        if let expiration = details?.expiration, let when = expiration.dateTime {
            let passed = when <= MobileMapPackage.now()
            let what = expiration.kind == .preventExpiredAccess ? (passed ? "expired, cannot be opened" : "expires") : (passed ? "expired" : "expires")
            facts.append("\(what) \(String(ISODate.format(milliseconds: when).prefix(10)))")
        }
        lines.append(TextPanel.Line("  " + facts.joined(separator: " · "), dim: true))
        return lines
    }

    /// "Downloading 'Title'  ███████░░░░  45% 12.3 MB of 27 MB".
    static func bar(_ progress: PortalWork.Progress, width: Int) -> String {
        let fraction = progress.total.map { $0 > 0 ? min(Double(progress.done) / Double($0), 1) : 0 }
        let label = " \(progress.resumed ? "Resuming" : "Downloading") '\(progress.title.prefix(30))' "
        let numbers = " " + (fraction.map { "\(Int($0 * 100))% " } ?? "") + Format.bytes(progress.done) + (progress.total.map { " of " + Format.bytes($0) } ?? "")
        let room = max(width - label.count - numbers.count, 4)
        let filled = Int((fraction ?? 0) * Double(room))
        return "\u{1B}[0m" + label + String(repeating: "█", count: filled) + String(repeating: "░", count: room - filled) + numbers
    }

    // MARK: - Keys

    func handle(_ key: TerminalKey, size: TerminalSize) -> ScreenAction {
        message = nil
        let rows = rows
        switch key {
        case .character("q"), .control("c"), .control("d"): return .quit
        case .up, .character("k"): selection = max(selection - 1, 0)
        case .down, .character("j"): selection = min(selection + 1, max(rows.count - 1, 0))
        case .character("?"): return .push(HelpScreen(returning: "the library"))
        case .character("r"):
            guard mode == .portal, let portal else { message = "device mode: no portal to check"; return .redraw }
            work.check(portal: portal, context: context)
        case .character("d"), .character("u"):
            guard rows.indices.contains(selection), let portal else { message = "nothing to download in device mode"; return .redraw }
            let item: PortalItem?
            switch rows[selection] {
            case .available(let available): item = available
            case .opened(let entry):
                message = "'\(entry.title)' was opened from its path, not from the portal"
                return .redraw
            case .package(let entry):
                let status = work.snapshot().statuses.first { $0.record.itemId == entry.itemId }
                guard let status, status.updateAvailable, let newer = status.item else {
                    let state = work.snapshot()
                    if status == nil, let id = entry.itemId, UpdateCheck.isUpdate(lastCheck?.findings[id]), state.problem != nil {
                        message = "the portal cannot be reached: the update is fetched when it can (press r to try again)"
                    } else {
                        message = "'\(entry.title)' has no update" + (status == nil ? " known: press r to check" : "")
                    }
                    return .redraw
                }
                item = newer
            }
            if let item, !work.download(item, portal: portal, context: context) { message = "a download is under way" }
        case .enter:
            guard rows.indices.contains(selection) else { return .none }
            switch rows[selection] {
            case .available(let item):
                message = "'\(item.title)' is on the portal only: press d to download it"
            case .package(let entry), .opened(let entry):
                do {
                    return .push(try ScreenStack.screen(opening: entry.path, context: context, size: size))
                } catch {
                    message = "\(error)"
                }
            }
        default: return .none
        }
        return .redraw
    }
}
