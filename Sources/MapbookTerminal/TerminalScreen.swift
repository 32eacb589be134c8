import MapbookLibrary
import MapbookPortal
import MapbookRender

/// One screen of `mapbook view`: the library, a package's maps, a map, the keys. The viewer
/// shows the top screen of a stack, asks it for whole frames and hands it the keys.
protocol TerminalScreen: AnyObject {
    /// The whole screen for a terminal of `size`.
    func frame(_ size: TerminalSize) -> String
    /// A line to show at once while a slow frame is made ("drawing…"); nil when the frame is quick.
    func pendingNote(_ size: TerminalSize) -> String?
    /// What a key does.
    func handle(_ key: TerminalKey, size: TerminalSize) -> ScreenAction
    /// Whether work in the background (an update check, a download) changed what the screen
    /// shows since the last frame.
    func poll() -> Bool
    /// Called when the screen is closed or the viewer quits.
    func close()
}

extension TerminalScreen {
    func pendingNote(_ size: TerminalSize) -> String? { nil }
    func poll() -> Bool { false }
    func close() {}
}

/// What a key asks of the viewer.
enum ScreenAction {
    /// Nothing to draw again.
    case none
    /// Draw the screen again.
    case redraw
    /// Show another screen on top; `pop` comes back.
    case push(any TerminalScreen)
    /// Close this screen and show the one under it (the library when there is none).
    case pop
    /// Close this screen and show another in its place.
    case replace(any TerminalScreen)
    /// Go back to the library, then show `then` on top of it when given.
    case home(then: (any TerminalScreen)?)
    case quit
}

/// What every screen of one viewer run shares.
public struct ViewerContext {
    public let library: DeviceLibrary
    /// How pictures print on this terminal.
    public let mode: TerminalPicture.Mode
    /// How to trust the portal's certificate, for update checks and downloads.
    public let trust: PortalTrust

    public init(library: DeviceLibrary, mode: TerminalPicture.Mode, trust: PortalTrust) {
        self.library = library
        self.mode = mode
        self.trust = trust
    }
}
