import MapbookSupport

/// Appends the index's binary fields: LEB128 varints and little-endian fixed widths.
struct IndexByteWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) { Varint.append(value, to: &bytes) }

    mutating func varint(_ value: Int) { varint(UInt64(value)) }

    mutating func uint16(_ value: UInt16) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }

    mutating func fixed(_ value: UInt64, width: Int) {
        for i in 0..<width { bytes.append(UInt8((value >> (8 * UInt64(i))) & 0xFF)) }
    }

    mutating func float32(_ value: Float) { fixed(UInt64(value.bitPattern), width: 4) }

    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }
}

/// Reads what `IndexByteWriter` wrote, refusing to run past the end: a damaged index gives
/// `nil`, never a crash.
struct IndexByteReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var atEnd: Bool { offset >= bytes.count }

    mutating func varint() -> UInt64? {
        // Most are one byte (lengths, counts): read here. `Varint.read` has the same path but
        // runs unspecialised from here; going through it made a locator's first query 3 ms slower.
        if offset < bytes.count, bytes[offset] < 0x80 {
            offset += 1
            return UInt64(bytes[offset - 1])
        }
        return try? Varint.read(bytes, at: &offset, end: bytes.count)
    }

    mutating func int() -> Int? {
        guard let v = varint(), v <= UInt64(Int.max) else { return nil }
        return Int(v)
    }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }
}

/// Little-endian fixed-width reads from a column of an entries chunk.
enum FixedWidth {
    static func read(_ bytes: [UInt8], at index: Int, width: Int) -> UInt64? {
        let start = index * width
        guard index >= 0, start + width <= bytes.count else { return nil }
        var v: UInt64 = 0
        for i in 0..<width { v |= UInt64(bytes[start + i]) << (8 * UInt64(i)) }
        return v
    }
}

/// Decodes a posting list: sorted group ids as deltas.
enum Postings {
    static func encode(_ groups: [UInt32]) -> [UInt8] {
        var w = IndexByteWriter()
        var previous: UInt32 = 0
        for (i, g) in groups.enumerated() {
            w.varint(UInt64(i == 0 ? g : g - previous))
            previous = g
        }
        return w.bytes
    }

    /// Calls `body` with each group id; false when the list is damaged.
    ///
    /// The varints are read here, from the bytes in place: a broad prefix walks lists of tens
    /// of thousands of groups, and `Varint.read` ran unspecialised from this module (through
    /// the slice's generic subscript), most of such a query's time.
    @discardableResult
    static func forEach(_ bytes: ArraySlice<UInt8>, groupCount: Int, _ body: (UInt32) -> Void) -> Bool {
        bytes.withUnsafeBufferPointer { list in
            var value: UInt64 = 0
            var first = true
            var i = 0
            while i < list.count {
                var delta: UInt64 = 0, shift: UInt64 = 0
                while true {
                    // Ten bytes at most, the tenth holding only bit 63 (as `Varint.read`).
                    guard i < list.count, shift <= 63 else { return false }
                    let byte = list[i]
                    i += 1
                    if shift == 63, byte > 1 { return false }
                    delta |= UInt64(byte & 0x7F) << shift
                    if byte < 0x80 { break }
                    shift += 7
                }
                value = first ? delta : value &+ delta
                first = false
                guard value < UInt64(groupCount) else { return false }
                body(UInt32(value))
            }
            return true
        }
    }
}
