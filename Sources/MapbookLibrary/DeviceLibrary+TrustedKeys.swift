import MapbookPackage
import MapbookSupport

/// A public key the library trusts to sign packages.
public struct TrustedKey: Sendable, Equatable {
    public var key: PublicSigningKey
    /// What the user calls it: the key file's name, or the portal user who registered it.
    public var name: String
    /// The portal the key came from at sign-in; nil for a key added by hand.
    public var portal: String?

    public init(key: PublicSigningKey, name: String, portal: String?) {
        self.key = key
        self.name = name
        self.portal = portal
    }

    /// As `mapbook library trust list --json` prints it.
    public var jsonValue: JSONValue {
        .object(["fingerprint": .string(key.fingerprint), "name": .string(name), "portal": portal.map(JSONValue.string) ?? .null])
    }

    /// As `mapbook library trust list` prints it.
    public var line: String { "\(key.fingerprint)  \(name)\(portal.map { "  (from \($0))" } ?? "")" }
}

/// The trusted keys: `trusted-keys.json` (docs/LIBRARY.md), added by hand
/// (`mapbook library trust add KEY.pub`) or fetched from the portal at sign-in, and the record
/// of signed files already checked (`verified/`).
extension DeviceLibrary {
    var trustedKeysPath: String { root + "/trusted-keys.json" }

    /// Signed package files whose entries this library checked, so that opening one again
    /// costs a `stat`.
    public var verifiedFiles: VerifiedFiles { VerifiedFiles(folder: root + "/verified") }

    public func trustedKeys() throws -> [TrustedKey] {
        try withLock(creating: false) { try readTrustedKeys() }
    }

    /// Trusts `key`; false when it was trusted already (its name is then left as it was).
    @discardableResult
    public func trust(_ key: PublicSigningKey, name: String) throws -> Bool {
        try withLock(creating: true) {
            var keys = try readTrustedKeys()
            guard !keys.contains(where: { $0.key == key }) else { return false }
            keys.append(TrustedKey(key: key, name: name, portal: nil))
            try writeTrustedKeys(keys)
            return true
        }
    }

    /// Stops trusting the keys whose fingerprint or name is `which`; returns them.
    public func distrust(_ which: String) throws -> [TrustedKey] {
        try withLock(creating: true) {
            let keys = try readTrustedKeys()
            let gone = keys.filter { $0.key.fingerprint == which || $0.name == which }
            guard !gone.isEmpty else {
                throw LibraryError(kind: .noSuchKey, path: trustedKeysPath, message: "no trusted key has the fingerprint or name '\(which)' ('mapbook library trust list' shows them)")
            }
            try writeTrustedKeys(keys.filter { !gone.contains($0) })
            return gone
        }
    }

    /// Replaces the keys that came from `portal` with `current`, its publishers' registered
    /// keys now: a key the portal no longer lists (rotated out) stops being trusted; keys
    /// added by hand stay.
    public func replacePortalKeys(_ current: [(key: PublicSigningKey, name: String)], portal: String) throws {
        try withLock(creating: true) {
            var keys = try readTrustedKeys().filter { $0.portal != portal }
            for (key, name) in current where !keys.contains(where: { $0.key == key }) {
                keys.append(TrustedKey(key: key, name: name, portal: portal))
            }
            try writeTrustedKeys(keys)
        }
    }

    func readTrustedKeys() throws -> [TrustedKey] {
        guard let bytes = try LibraryFiles.read(trustedKeysPath) else { return [] }
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(bytes, path: trustedKeysPath)
        } catch {
            throw LibraryError(kind: .invalidRecord, path: trustedKeysPath, message: "is not a JSON object (\(error.message)); remove it and add the keys again")
        }
        return try (object["keys"]?.arrayValue ?? []).map { value throws(LibraryError) in
            guard let item = value.objectValue, let der = item["publicKey"]?.stringValue.flatMap(Base64.decode),
                let key = try? PublicSigningKey(der: der, path: trustedKeysPath)
            else {
                throw LibraryError(kind: .invalidRecord, path: trustedKeysPath, message: "holds a key that is not an Ed25519 public key; remove it and add the keys again")
            }
            return TrustedKey(key: key, name: item["name"]?.stringValue ?? key.fingerprint, portal: item["portal"]?.stringValue)
        }
    }

    func writeTrustedKeys(_ keys: [TrustedKey]) throws {
        let list: [JSONValue] = keys.map {
            var o: JSONObject = ["fingerprint": .string($0.key.fingerprint), "name": .string($0.name), "publicKey": .string(Base64.encode($0.key.der))]
            if let portal = $0.portal { o["portal"] = .string(portal) }
            return .object(o)
        }
        try AtomicFile.write(JSONWriter.bytes(.object(["keys": .array(list)])), to: trustedKeysPath)
    }
}
