#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import MapbookLibrary
import MapbookSupport
import NIOSSL

/// `mapbook serve`: the mapbook in a web browser. The device library's packages (and any
/// named on the command line) as pages, MapLibre maps with tiles served in place, and the
/// JSON API the pages use, over HTTP on loopback or HTTPS with a certificate.
public enum WebServer {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// Asked of every request when set; `needsSecret(host:)` says when it must be.
        public var secret: String?
        /// PEM files of the certificate (chain allowed) and its key, for HTTPS.
        public var certificate: String?
        public var key: String?
        public init() {}
    }

    /// Loopback is only this device: 127.0.0.1, ::1 and localhost serve without a secret.
    /// Any other address (other 127.x addresses included) asks for one.
    public static func needsSecret(host: String) -> Bool {
        !["127.0.0.1", "::1", "localhost", "[::1]"].contains(host.lowercased())
    }

    /// 128 random bits as 32 hexadecimal digits.
    public static func makeSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
    }

    /// The application, for `run` and for tests.
    public static func application(
        catalog: WebCatalog, options: Options, logger: Logger = Logger(label: "mapbook.serve"),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        let assets = try WebAssets()
        let pages = try await WebPages(directory: assets.templates)
        let router = Hummingbird.Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let secure = options.certificate != nil
        router.add(middleware: WebGuard(secret: options.secret, secure: secure, pages: pages))
        WebRoutes(catalog: catalog, pages: pages, assets: assets).register(router)
        var server: HTTPServerBuilder = .http1()
        if let certificate = options.certificate, let key = options.key {
            server = try .tls(.http1(), tlsConfiguration: try tlsConfiguration(certificate: certificate, key: key))
        }
        return Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "Mapbook"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? options.port) }, logger: logger)
    }

    static func tlsConfiguration(certificate: String, key: String) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let privateKey: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw WebError(status: .internalServerError, kind: "invalidCertificate", message: "\(certificate): cannot read the certificate (PEM expected): \(error)")
        }
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw WebError(status: .internalServerError, kind: "invalidCertificate", message: "\(key): cannot read the private key (PEM expected): \(error)")
        }
        guard !chain.isEmpty else { throw WebError(status: .internalServerError, kind: "invalidCertificate", message: "\(certificate) holds no certificate") }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }

    /// Serves until SIGINT or SIGTERM; `announce` gets the address to open (with the secret,
    /// when there is one) once the server listens.
    public static func run(catalog: WebCatalog, options: Options, announce: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "mapbook.serve")
        logger.logLevel = .warning
        let scheme = options.certificate != nil ? "https" : "http"
        let display = options.host.contains(":") && !options.host.hasPrefix("[") ? "[\(options.host)]" : options.host
        let app = try await application(catalog: catalog, options: options, logger: logger) { port in
            announce("\(scheme)://\(display):\(port)/" + (options.secret.map { "?key=\($0)" } ?? ""))
        }
        try await app.runService()
    }
}

extension WebServer {
    /// What the command prints once the server listens: the address, and with a secret its
    /// QR code for a phone's camera.
    public static func announcement(_ address: String, withQRCode: Bool) -> String {
        var text = "Mapbook on \(address)\n"
        if withQRCode, let qr = TerminalQRCode.lines(address) {
            text += "Open it on a phone on this network (the key in the address lets it in):\n" + qr.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// Hands the address to the desktop's browser (xdg-open); false when it cannot start.
    public static func openInBrowser(_ address: String) -> Bool {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("xdg-open"), strdup(address), nil]
        defer { for p in argv { free(p) } }
        return posix_spawnp(&pid, "xdg-open", nil, nil, argv, environ) == 0
    }
}
