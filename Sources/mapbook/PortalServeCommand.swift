import ArgumentParser
import MapbookPortalServer

#if canImport(Glibc)
import Glibc
#endif

struct PortalServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a portal over HTTPS from a data folder.",
        discussion: """
            The data folder holds the metadata (portal.sqlite), the item files and, with \
            --self-signed, a certificate made on the first run and kept for the next ones. \
            Add users first with 'mapbook portal user add'. Stops cleanly on Ctrl-C or \
            SIGTERM, finishing the requests under way. Logs go to stderr; --log-level debug \
            shows every request.
            """)

    @Option(name: .long, help: "The portal's data folder (created if missing).")
    var data: String

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0: any free port, printed at start).")
    var port = 8443

    @Option(name: .customLong("tls-cert"), help: "The server certificate (PEM, chain allowed).")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The certificate's private key (PEM).")
    var tlsKey: String?

    @Flag(name: .customLong("self-signed"), help: "Make a self-signed certificate on the first run and keep it in DATA/tls.")
    var selfSigned = false

    @Flag(name: .customLong("no-validate"), help: "Accept packages that 'mapbook validate' rejects.")
    var noValidate = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning or error.")
    var logLevel = "info"

    /// For tests: a server that stops by itself even if the test that started it dies.
    @Option(name: .customLong("stop-after"), help: .hidden)
    var stopAfter: Int?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if selfSigned {
            guard tlsCert == nil, tlsKey == nil else { throw ValidationError("give either --self-signed or --tls-cert with --tls-key, not both") }
        } else {
            guard tlsCert != nil, tlsKey != nil else {
                throw ValidationError("the portal serves HTTPS only: give --tls-cert FILE --tls-key FILE, or --self-signed for a first run")
            }
        }
    }

    func run() async throws {
        var configuration = PortalConfiguration(dataDirectory: data)
        configuration.validatePackages = !noValidate
        let portal: Portal
        do {
            portal = try Portal.open(configuration)
        } catch {
            Output.error("error: \(error)")
            throw ExitCode.failure
        }
        if try portal.store.users().isEmpty {
            Output.error("note: the portal has no users yet; add one with 'mapbook portal user add NAME --admin --data \(data) --password-stdin'")
        }
        let tls: PortalTLS = selfSigned ? .selfSigned : .files(certificate: tlsCert!, key: tlsKey!)
        let data = self.data
        if let stopAfter {
            Task.detached {
                try? await Task.sleep(for: .seconds(stopAfter))
                kill(getpid(), SIGTERM)
            }
        }
        do {
            try await PortalServer.run(portal: portal, host: host, port: port, tls: tls, logLevel: logLevel) { address in
                Output.write("Mapbook portal on \(address) (data \(data))\n", to: STDOUT_FILENO)
            }
        } catch {
            Output.error("error: \(error)")
            throw ExitCode.failure
        }
    }
}
