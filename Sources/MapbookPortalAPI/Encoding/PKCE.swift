import Crypto

/// Proof Key for Code Exchange (RFC 7636) with the S256 method: the verifier stays here, the
/// portal sees its hash first and the verifier only when the code is traded for tokens, so a
/// code caught on the way is worth nothing.
package struct PKCE: Sendable {
    /// 32 random bytes in base64url: 43 characters, the shortest RFC 7636 allows.
    package let verifier: String
    /// base64url(SHA-256(verifier)).
    package let challenge: String

    package init() {
        self.init(verifier: Base64URL.random(bytes: 32))
    }

    package init(verifier: String) {
        self.verifier = verifier
        self.challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }
}
