/// The id a device library names itself by to its portal (issue 34): made by the library,
/// checked by the library when it reads it back and by the portal when a request carries it.
package enum DeviceId {
    /// The headers the id and the version held travel in (docs/LIBRARY.md "`device.json`").
    package static let header = "X-Mapbook-Device", holdsHeader = "X-Mapbook-Holds"

    /// 8 to 64 ASCII letters, digits and '-'.
    package static func isValid(_ s: String) -> Bool {
        (8...64).contains(s.utf8.count) && s.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// A random version-4 UUID, lowercase.
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array(bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined().utf8)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(decoding: hex[$0], as: UTF8.self) }.joined(separator: "-")
    }
}
