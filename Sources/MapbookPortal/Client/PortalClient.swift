import AsyncHTTPClient
import MapbookSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import MapbookLibrary
import MapbookPortalAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client of a portal's ArcGIS REST sharing API over HTTPS: `mapbook portal serve`, ArcGIS
/// Enterprise or ArcGIS Online (DESIGN.md section 7).
///
/// It sends the token as `X-Esri-Authorization: Bearer`, never in a URL, and never to another
/// origin: redirects are followed by hand and drop the token when they leave the portal (a
/// download may be redirected to a storage service). Before each request an access token that
/// expires within a minute is refreshed with the refresh token, when there is one, and the
/// new credential is handed to `credentialChanged` to be stored.
///
/// API errors (HTTP 200 with `{"error": ...}`) are thrown as `PortalError`; a rejected or
/// expired sign-in, an unreachable portal and answers that are not the API's are thrown as
/// `PortalClientError`. Make one with `PortalClient.with(...)`, which closes its connections
/// on every path out.
public final class PortalClient: Sendable {
    /// The OAuth app id this client signs in as (the portal accepts any id for its own pages;
    /// ArcGIS Online needs a registered app, so signing in there falls back to generateToken).
    public static let clientId = "mapbook"

    /// The portal, as `DeviceLibrary.normalizedPortalURL` gives it: `https://host[:port][/path]`.
    public let portalURL: String
    /// The sharing API's root: `<portal>/sharing/rest`.
    public var restURL: String { portalURL + "/sharing/rest" }

    let http: HTTPClient
    private let state: Mutex<Credential?>
    /// The device library's id, sent as `X-Mapbook-Device` with every request (issue 34);
    /// nil: the library does not report.
    private let device = Mutex<String?>(nil)
    let credentialChanged: (@Sendable (Credential) throws -> Void)?

    init(portalURL: String, http: HTTPClient, credential: Credential?, credentialChanged: (@Sendable (Credential) throws -> Void)?) {
        self.portalURL = portalURL
        self.http = http
        self.state = Mutex(credential)
        self.credentialChanged = credentialChanged
    }

    /// Runs `body` with a client of the portal at `portalURL`, shutting its connections down
    /// afterwards, whether `body` throws or not.
    ///
    /// `portalURL` may be given as the user typed it (`https://host/portal/home`,
    /// `.../sharing/rest`); see `portalRoot(_:)`. `credential` signs requests; a refreshed one
    /// is passed to `credentialChanged` before it is used.
    public static func with<T>(
        portalURL: String, trust: PortalTrust = .system, credential: Credential? = nil,
        credentialChanged: (@Sendable (Credential) throws -> Void)? = nil,
        _ body: (PortalClient) async throws -> T
    ) async throws -> T {
        let root = try portalRoot(portalURL)
        let tls = try trust.tlsConfiguration()
        // Redirects are followed by hand (see `send`), so the token never leaves the portal.
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(15), read: .seconds(120)))
        // A refused connection or a certificate that fails verification is reported at once
        // (offline, or --ca-cert needed), not retried with back-off until the connect
        // time-out: a person is waiting, and a download resumes where it stopped anyway.
        configuration.connectionPool.retryConnectionEstablishment = false
        return try await HTTPClient.withHTTPClient(configuration: configuration) { http in
            try await body(PortalClient(portalURL: root, http: http, credential: credential, credentialChanged: credentialChanged))
        }
    }

    /// The portal's root URL from what a user may type: the portal's home page, its
    /// `sharing/rest` URL, with or without a trailing slash, normalized as the library stores it.
    public static func portalRoot(_ url: String) throws -> String {
        let normalized = try DeviceLibrary.normalizedPortalURL(url)
        let origin = Self.origin(of: normalized)
        var path = String(normalized.dropFirst(origin.count))
        // The portal's home app (`/home/...`) and its API (`/sharing/rest`) hang off the root.
        if let home = path.firstRange(of: "/home"), path[home.upperBound...].isEmpty || path[home.upperBound...].hasPrefix("/") {
            path = String(path[..<home.lowerBound])
        }
        for suffix in ["/sharing/rest", "/sharing"] where path.lowercased().hasSuffix(suffix) {
            path = String(path.dropLast(suffix.count))
            break
        }
        return origin + path
    }

    /// The credential requests are signed with: the one given, or its refreshed successor.
    public var credential: Credential? { state.withLock { $0 } }

    /// Names this device (the library's `reportingDeviceId()`) in the requests that follow,
    /// so a Mapbook portal can tell who holds which version; other portals ignore it.
    public func report(asDevice id: String?) {
        device.withLock { $0 = id }
    }

    static let deviceHeader = DeviceId.header, holdsHeader = DeviceId.holdsHeader

    func setCredential(_ credential: Credential?) {
        state.withLock { $0 = credential }
    }

    /// Milliseconds since the epoch.
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    // MARK: - Requests

    /// What a request sends after its headers.
    enum Body {
        /// `application/x-www-form-urlencoded` fields.
        case form([(String, String)])
        /// `multipart/form-data` fields and a file.
        case multipart(MultipartForm)
    }

    /// Calls a sharing API operation (`path` under `restURL`, e.g. `content/items/ID`) and
    /// returns its JSON object.
    ///
    /// GET sends `fields` in the query string, POST in a form body (or `body`, when given).
    /// `f=json` is added. With `authenticated`, the request carries the token (refreshed
    /// first when it is about to expire); a token the portal rejects is refreshed once and the
    /// request sent again, and otherwise ends in "sign in again".
    func call(
        _ path: String, method: HTTPMethod = .GET, _ fields: [(String, String)] = [], body: Body? = nil, authenticated: Bool = true,
        headers: [(String, String)] = []
    ) async throws -> JSONObject {
        let url = path.hasPrefix("https://") || path.hasPrefix("http://") ? path : "\(restURL)/\(path)"
        var refreshed = false
        while true {
            let credential = authenticated ? try await currentCredential() : nil
            var request: HTTPClientRequest
            switch (method, body) {
            case (.GET, _):
                request = HTTPClientRequest(url: url + "?" + FormEncoding.encode(fields + [("f", "json")]))
            case (_, .multipart(let form)?):
                request = HTTPClientRequest(url: url + "?" + FormEncoding.encode(fields + [("f", "json")]))
                request.method = method
                request.headers.add(name: "Content-Type", value: form.contentType)
                request.body = .stream(form, length: .known(form.length))
            case (_, .form(let extra)?):
                request = HTTPClientRequest(url: url)
                request.method = method
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields + extra + [("f", "json")])))
            case (_, nil):
                request = HTTPClientRequest(url: url)
                request.method = method
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields + [("f", "json")])))
            }
            for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
            let response = try await send(request, credential: credential)
            let bytes = try await Self.collect(response, url: url)
            let value = try Self.parseJSON(bytes, status: response.status, url: url)
            if let error = PortalError(response: value) {
                // 498: the token is unknown, expired or revoked; 499: the portal wants one.
                if authenticated, error.code == 498 || (error.code == 499 && credential != nil) {
                    if !refreshed, let credential, credential.refreshToken != nil {
                        _ = try await refresh(credential, reason: "the portal rejected the access token")
                        refreshed = true
                        continue
                    }
                    throw signInAgain(credential, because: "the portal rejected the saved sign-in (\(error.message))")
                }
                if authenticated, error.code == 499 {
                    throw PortalClientError(
                        .signInRequired, url: portalURL,
                        message: "this needs a signed-in user; sign in with `mapbook portal signin \(portalURL) --user NAME`")
                }
                throw error
            }
            guard case .object(let object) = value else {
                throw PortalClientError(.badResponse, url: Self.shown(url), message: "answered with \(value.kindName), not a JSON object; is this an ArcGIS portal?")
            }
            return object
        }
    }

    /// Sends `request` with the credential's token, following up to five redirects by hand:
    /// POST becomes GET after 301/302/303, and the token is dropped when a redirect leaves
    /// the portal's origin. Failures to connect become `PortalClientError.unreachable`.
    func send(_ request: HTTPClientRequest, credential: Credential?, deadline: NIODeadline = .now() + .seconds(300)) async throws -> HTTPClientResponse {
        var request = request
        if let device = device.withLock({ $0 }) { request.headers.replaceOrAdd(name: Self.deviceHeader, value: device) }
        if let credential {
            request.headers.replaceOrAdd(name: "X-Esri-Authorization", value: "Bearer \(credential.token)")
            // A generateToken token bound to a referer is only honoured with that Referer.
            if let referer = credential.referer { request.headers.replaceOrAdd(name: "Referer", value: referer) }
        }
        let origin = Self.origin(of: portalURL)
        for _ in 0...5 {
            let response: HTTPClientResponse
            do {
                response = try await http.execute(request, deadline: deadline)
            } catch let error as CancellationError {
                throw error
            } catch {
                throw PortalClientError(.unreachable, url: Self.shown(request.url), message: Self.explain(error))
            }
            guard [301, 302, 303, 307, 308].contains(response.status.code), let location = response.headers.first(name: "Location") else {
                return response
            }
            _ = try? await response.body.collect(upTo: 1 << 20)
            let next = Self.resolve(location, against: request.url)
            if [301, 302, 303].contains(response.status.code), request.method != .GET, request.method != .HEAD {
                request.method = .GET
                request.body = nil
                request.headers.remove(name: "Content-Type")
                request.headers.remove(name: "Content-Length")
            } else if request.body != nil {
                // A streamed body cannot be sent twice; say where the portal wanted it.
                throw PortalClientError(.badResponse, url: Self.shown(request.url), message: "redirected the upload to \(Self.shown(next)); use that address as the portal URL")
            }
            if Self.origin(of: next) != origin {
                request.headers.remove(name: "X-Esri-Authorization")
                request.headers.remove(name: "Authorization")
                // What the device tells its portal is for that portal alone.
                request.headers.remove(name: Self.deviceHeader)
                request.headers.remove(name: Self.holdsHeader)
            }
            request.url = next
        }
        throw PortalClientError(.badResponse, url: Self.shown(request.url), message: "redirects too often; check the portal URL")
    }

    /// The whole body of a (small) response.
    static func collect(_ response: HTTPClientResponse, url: String, limit: Int = 64 << 20) async throws -> [UInt8] {
        do {
            let buffer = try await response.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as NIOTooManyBytesError {
            throw PortalClientError(.badResponse, url: shown(url), message: "sent more than \(limit) bytes where a JSON answer was expected (\(error))")
        } catch let error as CancellationError {
            throw error
        } catch {
            throw PortalClientError(.unreachable, url: shown(url), message: "the connection broke while reading the answer (\(explain(error)))")
        }
    }

    /// The API's JSON, or an error saying what came instead.
    static func parseJSON(_ bytes: [UInt8], status: HTTPResponseStatus, url: String) throws -> JSONValue {
        if let value = try? JSONParser.parse(bytes) { return value }
        if status.code != 200 {
            throw PortalClientError(
                .badResponse, url: shown(url), message: "answered HTTP \(status.code) \(status.reasonPhrase); check the portal URL (the sharing API is at <portal>/sharing/rest)")
        }
        let start = String(decoding: bytes.prefix(80), as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        throw PortalClientError(.badResponse, url: shown(url), message: "answered with something that is not JSON ('\(start)'); is this an ArcGIS portal?")
    }

    /// `scheme://host[:port]` of a URL, lowercased.
    static func origin(of url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url.lowercased() }
        let rest = url[schemeEnd.upperBound...]
        let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return String(url[..<hostEnd]).lowercased()
    }

    /// A `Location` resolved against the URL that sent it (absolute, or absolute-path).
    static func resolve(_ location: String, against url: String) -> String {
        if location.contains("://") { return location }
        if location.hasPrefix("//") {
            let scheme = url.firstRange(of: "://").map { String(url[..<$0.lowerBound]) } ?? "https"
            return scheme + ":" + location
        }
        if location.hasPrefix("/") { return origin(of: url) + location }
        let base = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        guard let slash = base.lastIndex(of: "/") else { return location }
        return String(base[...slash]) + location
    }

    /// A URL as errors show it: without its query, which can be long and is never needed to act.
    static func shown(_ url: String) -> String {
        url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
    }

    /// Why a connection failed, in words a user can act on.
    static func explain(_ error: any Error) -> String {
        let text = String(describing: error)
        switch ConnectionFailure(error) {
        case .refused: return "connection refused (is the portal running, and is the port right?)"
        case .timeout: return "no answer in time (\(text))"
        case .tls:
            return "the TLS handshake failed (\(text)); if the portal's certificate is self-signed or from a private CA, give it with --ca-cert FILE"
        case .unknownHost: return "the host name does not resolve (\(text))"
        case nil: return text
        }
    }

    /// What stopped a connection, read from the error's type and code.
    enum ConnectionFailure {
        case refused, timeout, tls, unknownHost

        init?(_ error: any Error) {
            switch error {
            case let error as HTTPClientError:
                guard [.connectTimeout, .readTimeout, .deadlineExceeded].contains(error) else { return nil }
                self = .timeout
            case let error as NIOConnectionError:
                // Each address tried failed for a reason; with none tried, the lookup failed.
                if let failure = error.connectionErrors.lazy.compactMap({ ConnectionFailure($0.error) }).first {
                    self = failure
                } else if error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil) {
                    self = .unknownHost
                } else {
                    return nil
                }
            case let error as IOError:
                switch error.errnoCode {
                case ECONNREFUSED: self = .refused
                case ETIMEDOUT: self = .timeout
                default: return nil
                }
            case let error as ChannelError:
                guard case .connectTimeout = error else { return nil }
                self = .timeout
            case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: self = .tls
            case is SocketAddressError: self = .unknownHost
            default: return nil
            }
        }
    }
}
