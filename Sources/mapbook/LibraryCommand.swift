import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookSupport

#if canImport(Glibc)
import Glibc
#endif

/// `mapbook library`: the device library's packages and mode, one subcommand each.
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "The device library: list, add (sideload) and remove packages, switch between device and portal mode.",
        discussion: """
            The library lives in $MAPBOOK_HOME, else $XDG_DATA_HOME/mapbook, else \
            ~/.local/share/mapbook. Device mode shows the packages you added by hand; portal \
            mode shows the ones downloaded from a portal. Switching to device mode removes the \
            downloads and signs out; packages you added are never removed by a switch, only \
            hidden in portal mode.
            """,
        subcommands: [
            LibraryListCommand.self,
            LibraryAddCommand.self,
            LibraryRemoveCommand.self,
            LibraryModeCommand.self,
            LibraryReportCommand.self,
            LibraryTakeOfflineCommand.self,
            LibraryTrustCommand.self,
        ],
        defaultSubcommand: LibraryListCommand.self)

    /// The library the environment names (`DeviceLibrary.defaultRoot`).
    static func library() -> DeviceLibrary { DeviceLibrary.fromEnvironment() }

    /// Runs `body`, printing an error as `error: ...` on stderr with exit status 1 (an exit
    /// status thrown passes as it is).
    static func attempt<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw reported(error) }
    }

    static func attempt<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw reported(error) }
    }

    private static func reported(_ error: any Error) -> any Error {
        if let exit = error as? ExitCode { return exit }
        Output.error("error: \(error)")
        return ExitCode.failure
    }
}

extension LibraryMode: ExpressibleByArgument {}
