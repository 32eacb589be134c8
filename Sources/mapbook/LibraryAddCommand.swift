import ArgumentParser
import MapbookPortal
import MapbookSupport

struct LibraryAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Sideload packages: copy them into the library, where device mode lists them.",
        discussion: """
            Each file must open as a mobile map package. It is copied (the original stays where \
            it is) under its own name, numbered when the name is taken. Exit status 1 when any \
            file could not be added; the others are still added.
            """)

    @Argument(help: ArgumentHelp("The packages (.mmpk) to add.", valueName: "PKG"))
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("give the package to add, as `mapbook library add PKG`") }
    }

    func run() throws {
        let library = LibraryCommand.library()
        var failed = false
        for path in paths {
            do {
                let entry = try library.addSideloaded(path)
                print("Added '\(entry.title)' as \(entry.name) (\(Format.bytes(entry.size)))")
            } catch {
                Output.error("error: \(error)")
                failed = true
            }
        }
        if try LibraryCommand.attempt({ try library.mode() }) == .portal {
            Output.error("note: the library is in portal mode, which hides sideloaded packages; `mapbook library mode device` shows them (and removes the downloads)")
        }
        if failed { throw ExitCode.failure }
    }
}
