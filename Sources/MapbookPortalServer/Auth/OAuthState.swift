import Crypto
import MapbookPortalAPI
import MapbookSupport

/// The state of an OAuth 2 sign-in between the authorize page and the sign-in form, carried
/// by the client as `oauth_state`: the request's parameters, signed with the portal's secret
/// (HMAC-SHA256) and valid for ten minutes, so the server keeps nothing per sign-in.
struct OAuthState: Equatable {
    var clientId: String
    /// `token` (implicit) or `code`.
    var responseType: String
    var redirectURI: String
    var state: String?
    /// Requested token lifetime in minutes.
    var expiration: Int64?
    var codeChallenge: String?
    var expires: Int64

    static let lifetimeMillis: Int64 = 10 * 60 * 1000

    func encode(secret: [UInt8]) -> String {
        var o: JSONObject = ["c": .string(clientId), "r": .string(responseType), "u": .string(redirectURI), "x": .integer(expires)]
        if let state { o["s"] = .string(state) }
        if let expiration { o["e"] = .integer(expiration) }
        if let codeChallenge { o["p"] = .string(codeChallenge) }
        let payload = Base64URL.encode(JSONWriter.bytes(.object(o), style: .compact))
        return payload + "." + Base64URL.encode(Self.mac(payload, secret))
    }

    /// The state if it is genuine and not expired.
    static func decode(_ text: String, secret: [UInt8], now: Int64) -> OAuthState? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, text.utf8.count < 4096, let mac = Base64URL.decode(String(parts[1])),
            mac == Self.mac(String(parts[0]), secret), let bytes = Base64URL.decode(String(parts[0])),
            case .object(let o)? = try? JSONParser.parse(bytes), let clientId = o["c"]?.stringValue,
            let responseType = o["r"]?.stringValue, let redirect = o["u"]?.stringValue, let expires = o["x"]?.int64Value, expires > now
        else { return nil }
        return OAuthState(
            clientId: clientId, responseType: responseType, redirectURI: redirect, state: o["s"]?.stringValue, expiration: o["e"]?.int64Value,
            codeChallenge: o["p"]?.stringValue, expires: expires)
    }

    static func mac(_ payload: String, _ secret: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: SymmetricKey(data: secret)))
    }
}
