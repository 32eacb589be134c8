import MapbookSupport

/// A range of 256 signed-distance-field glyphs of one font stack, in the glyph format MapLibre
/// reads for a style's `glyphs` URL (`{fontstack}/{start}-{end}.pbf`): the `glyphs` message
/// of Mapbox's `glyphs.proto`, one `fontstack` with its name, its range and its glyphs.
///
/// Each glyph is drawn at 24 pixels with a 3-pixel border: `bitmap` holds
/// (`width` + 6) x (`height` + 6) distances, 192 on the outline, higher inside; `left` and `top`
/// place the bitmap from the pen (top measured from the ascender), `advance` moves the pen.
public struct GlyphRange: Sendable, Equatable {
    public struct Glyph: Sendable, Equatable {
        public var id: UInt32
        public var bitmap: [UInt8]
        public var width: UInt32
        public var height: UInt32
        public var left: Int32
        public var top: Int32
        public var advance: UInt32

        public init(id: UInt32, bitmap: [UInt8], width: UInt32, height: UInt32, left: Int32, top: Int32, advance: UInt32) {
            self.id = id
            self.bitmap = bitmap
            self.width = width
            self.height = height
            self.left = left
            self.top = top
            self.advance = advance
        }
    }

    /// The border around each glyph's bitmap, in pixels.
    public static let border = 3
    /// The size glyphs are drawn at, in pixels (MapLibre's `ONE_EM`).
    public static let size = 24

    public var fontStack: String
    /// The first code point of the range: a multiple of 256.
    public var start: UInt32
    public var glyphs: [Glyph]

    public init(fontStack: String, start: UInt32, glyphs: [Glyph]) {
        self.fontStack = fontStack
        self.start = start
        self.glyphs = glyphs
    }

    /// "0-255": the range as its file is named.
    public var name: String { "\(start)-\(start + 255)" }

    /// The ranges (their starts) holding every character of `texts`.
    public static func starts(of texts: some Sequence<String>) -> [UInt32] {
        var starts = Set<UInt32>()
        for text in texts {
            for scalar in text.unicodeScalars { starts.insert(scalar.value & ~0xFF) }
        }
        return starts.sorted()
    }

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.appendMessageField(1) { stack in
            stack.appendStringField(1, fontStack)
            stack.appendStringField(2, name)
            for glyph in glyphs {
                stack.appendMessageField(3) { g in
                    g.appendVarintField(1, UInt64(glyph.id))
                    if !glyph.bitmap.isEmpty { g.appendBytesField(2, glyph.bitmap) }
                    g.appendVarintField(3, UInt64(glyph.width))
                    g.appendVarintField(4, UInt64(glyph.height))
                    g.appendVarintField(5, UInt64(ProtobufWriter.zigzag(glyph.left)))
                    g.appendVarintField(6, UInt64(ProtobufWriter.zigzag(glyph.top)))
                    g.appendVarintField(7, UInt64(glyph.advance))
                }
            }
        }
        return writer.bytes
    }

    /// Reads a glyph range file (the first font stack in it).
    public static func decode(_ bytes: [UInt8], source: String) throws(MVTError) -> GlyphRange {
        try withRawBytes(bytes) { (buffer) throws(MVTError) -> GlyphRange in
            var reader = ProtobufReader(buffer)
            var result = GlyphRange(fontStack: "", start: 0, glyphs: [])
            while !reader.isAtEnd {
                let key = try reader.readKey()
                guard key.field == 1, key.wireType == .lengthDelimited else {
                    try reader.skip(key.wireType)
                    continue
                }
                var stack = reader.reader(over: try reader.readLengthDelimited())
                while !stack.isAtEnd {
                    let k = try stack.readKey()
                    switch (k.field, k.wireType) {
                    case (1, .lengthDelimited): result.fontStack = stack.string(try stack.readLengthDelimited()).string
                    case (2, .lengthDelimited):
                        let range = stack.string(try stack.readLengthDelimited()).string
                        result.start = UInt32(range.split(separator: "-").first ?? "") ?? 0
                    case (3, .lengthDelimited):
                        var g = stack.reader(over: try stack.readLengthDelimited())
                        var glyph = Glyph(id: 0, bitmap: [], width: 0, height: 0, left: 0, top: 0, advance: 0)
                        while !g.isAtEnd {
                            let f = try g.readKey()
                            switch (f.field, f.wireType) {
                            case (1, .varint): glyph.id = UInt32(truncatingIfNeeded: try g.readVarint())
                            case (2, .lengthDelimited): glyph.bitmap = Array(UnsafeRawBufferPointer(rebasing: buffer[try g.readLengthDelimited()]))
                            case (3, .varint): glyph.width = UInt32(truncatingIfNeeded: try g.readVarint())
                            case (4, .varint): glyph.height = UInt32(truncatingIfNeeded: try g.readVarint())
                            case (5, .varint): glyph.left = ProtobufReader.zigzag(UInt32(truncatingIfNeeded: try g.readVarint()))
                            case (6, .varint): glyph.top = ProtobufReader.zigzag(UInt32(truncatingIfNeeded: try g.readVarint()))
                            case (7, .varint): glyph.advance = UInt32(truncatingIfNeeded: try g.readVarint())
                            default: try g.skip(f.wireType)
                            }
                        }
                        let expected = glyph.width == 0 || glyph.height == 0 ? 0 : Int(glyph.width + 6) * Int(glyph.height + 6)
                        guard glyph.bitmap.count == expected || glyph.bitmap.isEmpty else {
                            throw MVTError(kind: .invalidField, source: source, message: "glyph \(glyph.id) has \(glyph.bitmap.count) bitmap bytes; \(glyph.width + 6) x \(glyph.height + 6) expected")
                        }
                        result.glyphs.append(glyph)
                    default: try stack.skip(k.wireType)
                    }
                }
                return result
            }
            return result
        }
    }
}
