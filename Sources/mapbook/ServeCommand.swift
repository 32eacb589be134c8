import ArgumentParser
import MapbookLibrary
import MapbookPortal
import MapbookPortalAPI
import MapbookSupport
import MapbookWeb

#if canImport(Glibc)
import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Show the device library's packages in a web browser: maps, search, pop-ups, directions.",
        discussion: """
            Serves the packages of 'mapbook library' and any PKG named, on 127.0.0.1 by \
            default. With --host on another address (for a phone on the same network), \
            the address printed carries a secret key, also shown as a QR code; requests \
            without it are refused. Service workers (the app opening again without the \
            network) need localhost or HTTPS: give --tls-cert and --tls-key on a network \
            address (docs/SERVE.md says how to make a certificate the phone trusts). \
            Nothing is loaded from another host. Stops on Ctrl-C.
            """)

    @Argument(help: ArgumentHelp("Packages to serve besides the library's.", valueName: "PKG"))
    var packages: [String] = []

    @Option(name: .long, help: "The address to listen on (127.0.0.1; 0.0.0.0 for every network).")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0: any free port, printed at start).")
    var port = 8080

    @Flag(name: .long, help: "Open the address in the default browser (xdg-open).")
    var open = false

    @Option(name: .customLong("tls-cert"), help: "A certificate (PEM) to serve HTTPS with.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The certificate's private key (PEM).")
    var tlsKey: String?

    /// For tests: a server that stops by itself even if the test that started it dies.
    @Option(name: .customLong("stop-after"), help: .hidden)
    var stopAfter: Int?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("give --tls-cert and --tls-key together") }
        for path in packages where FileSystem.kind(path) == nil { throw ValidationError("no such package: \(path)") }
    }

    func run() async throws {
        var options = WebServer.Options()
        options.host = host
        options.port = port
        options.certificate = tlsCert
        options.key = tlsKey
        if WebServer.needsSecret(host: host) { options.secret = WebServer.makeSecret() }
        let library = LibraryCommand.library()
        let catalog = WebCatalog(library: library, paths: packages, sync: Self.sync(library))
        if let stopAfter { PortalServeCommand.stop(after: stopAfter) }
        let open = open, hasSecret = options.secret != nil, settings = options
        try await LibraryCommand.attempt {
            try await WebServer.run(catalog: catalog, options: settings) { address in
                Output.write(WebServer.announcement(address, withQRCode: hasSecret), to: STDOUT_FILENO)
                if open, !WebServer.openInBrowser(address) { Output.error("note: cannot start xdg-open; open \(address) in a browser") }
            }
        }
    }

    /// The pages' sync action; the client's failures keep their kinds (`unreachable`: offline).
    static func sync(_ library: DeviceLibrary) -> WebSync {
        WebSync(
            account: { PackageSync.account(library).map { WebSync.Account(portal: $0.portal, user: $0.user) } },
            run: { entry in try await portalCall { try await PackageSync.run(entry, library: library).jsonValue } },
            takeOffline: { entry, area, scale in
                try await portalCall { try await PackageDownloader.takeOffline(itemId: entry.itemId ?? "", area: area, maxScale: scale, library: library).jsonValue }
            },
            update: { entry in try await portalCall { try await PackageDownloader.update(itemId: entry.itemId ?? "", library: library).jsonValue } })
    }

    /// A portal call from a page: the client's failures keep their kinds, the portal's own
    /// refusals (a 403, an area it cannot cut) say what the portal said.
    static func portalCall(_ body: () async throws -> JSONValue) async throws -> JSONValue {
        do {
            return try await body()
        } catch let error as PortalClientError {
            throw WebError(status: error.kind == .unreachable ? .serviceUnavailable : .badGateway, kind: "\(error.kind)", message: "\(error)")
        } catch let error as PortalError {
            throw WebError(status: .badGateway, kind: "portal", message: "the portal says: \(error)")
        }
    }
}
