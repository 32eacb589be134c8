import MapbookSupport

/// The signed-in user's token for one portal, as the library keeps it.
///
/// It never holds a password: signing in trades the password for a token, and only the token
/// (and an OAuth refresh token, when there is one) is stored, in a file only its owner can read.
/// `description` leaves the secrets out, so printing a credential cannot leak them to a log.
public struct Credential: Sendable, Equatable, CustomStringConvertible {
    /// The portal, as `DeviceLibrary.normalizedPortalURL` gives it.
    public var portalUrl: String
    public var username: String
    public var token: String
    /// When the token expires (epoch ms).
    public var expires: Int64
    /// The `referer` the token was generated for, when it is bound to one.
    public var referer: String?
    public var refreshToken: String?
    /// When the refresh token expires (epoch ms).
    public var refreshTokenExpires: Int64?
    /// The OAuth app the tokens were issued to.
    public var clientId: String?

    public init(
        portalUrl: String, username: String, token: String, expires: Int64, referer: String? = nil, refreshToken: String? = nil,
        refreshTokenExpires: Int64? = nil, clientId: String? = nil
    ) {
        self.portalUrl = portalUrl
        self.username = username
        self.token = token
        self.expires = expires
        self.referer = referer
        self.refreshToken = refreshToken
        self.refreshTokenExpires = refreshTokenExpires
        self.clientId = clientId
    }

    public var description: String {
        "\(username) at \(portalUrl) (token expires \(ISODate.format(milliseconds: expires)))"
    }

    public var jsonValue: JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return .object([
            "portalUrl": .string(portalUrl),
            "username": .string(username),
            "token": .string(token),
            "expires": .integer(expires),
            "referer": optional(referer),
            "refreshToken": optional(refreshToken),
            "refreshTokenExpires": refreshTokenExpires.map(JSONValue.integer) ?? .null,
            "clientId": optional(clientId),
        ])
    }

    /// Reads a stored credential; `path` names the file in errors.
    public init(json: JSONValue, path: String) throws(LibraryError) {
        func bad(_ key: String) -> LibraryError {
            LibraryError(kind: .invalidCredential, path: path, message: "the stored credential has no valid '\(key)'; sign in again")
        }
        guard let o = json.objectValue else { throw bad("token") }
        guard let portalUrl = o.string("portalUrl"), !portalUrl.isEmpty else { throw bad("portalUrl") }
        guard let username = o.string("username") else { throw bad("username") }
        guard let token = o.string("token"), !token.isEmpty else { throw bad("token") }
        guard let expires = o.int64("expires") else { throw bad("expires") }
        self.init(
            portalUrl: portalUrl, username: username, token: token, expires: expires, referer: o.string("referer"),
            refreshToken: o.string("refreshToken"), refreshTokenExpires: o.int64("refreshTokenExpires"), clientId: o.string("clientId"))
    }
}
