/// Well-known text: the seven Simple Features types (OGC 06-103r4, clause 7), with the ISO
/// `Z`, `M` and `ZM` tags (ISO 13249-3) and PostGIS EWKT's `SRID=n;` prefix.
///
/// Keywords are case-insensitive and whitespace is free between tokens. Without a `Z`/`M`
/// tag, three coordinates mean x y z and four x y z m, as PostGIS and GDAL read them. Every
/// position of a geometry has the same dimensions. Does not read curves, surfaces or TINs.
public enum WKT {
    /// Text that is not a geometry, with the offset where reading stopped.
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        /// What is wrong, for callers and tests to switch on.
        public enum Kind: Sendable, Hashable {
            /// The text is empty or only whitespace.
            case empty
            /// A character where the grammar wants another: a missing `(`, `,` or `)`.
            case unexpectedCharacter
            /// The text ends inside the geometry.
            case unexpectedEnd
            /// Text after the end of the geometry.
            case trailingContent
            /// An EWKT `SRID=n;` prefix that is malformed or out of range.
            case invalidSRID
            /// A type keyword this parser does not read: curves, surfaces, TINs, or a misspelling.
            case unsupportedType
            /// A coordinate that is not a number.
            case invalidNumber
            /// A position with fewer than two or more than four coordinates.
            case invalidPosition
            /// Positions or members whose Z/M dimensions disagree with each other or the tag.
            case mixedDimensions
            /// Geometry collections nested deeper than `WKT.maximumDepth`.
            case tooDeep
        }

        public var kind: Kind
        /// The offset of the offending character from the start of the text, counted in UTF-8
        /// bytes (the same as characters while the text is ASCII, as WKT is).
        public var offset: Int
        public var message: String
        public var description: String { "WKT at character \(offset): \(message)" }
    }

    /// Geometry collections nested deeper than this are refused: hostile text could
    /// otherwise exhaust the stack.
    public static let maximumDepth = 32

    /// Parses a geometry; an EWKT `SRID=n;` prefix is accepted and ignored.
    public static func parse(_ text: some StringProtocol) throws(Error) -> Geometry {
        try parseWithSRID(text).geometry
    }

    /// Parses a geometry and the SRID of its EWKT `SRID=n;` prefix, if it has one.
    public static func parseWithSRID(_ text: some StringProtocol) throws(Error) -> (geometry: Geometry, srid: Int32?) {
        let result: Result<(geometry: Geometry, srid: Int32?), Error>
        if let contiguous = text.utf8.withContiguousStorageIfAvailable({ parseResult($0) }) {
            result = contiguous
        } else {
            result = Array(text.utf8).withUnsafeBufferPointer { parseResult($0) }
        }
        return try result.get()
    }

    static func parseResult(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<(geometry: Geometry, srid: Int32?), Error> {
        do throws(Error) {
            return .success(try parseWithSRID(bytes: bytes))
        } catch {
            return .failure(error)
        }
    }

    /// Parses the UTF-8 bytes of a geometry in WKT or EWKT.
    static func parseWithSRID(bytes: UnsafeBufferPointer<UInt8>) throws(Error) -> (geometry: Geometry, srid: Int32?) {
        var parser = Parser(bytes)
        parser.skipSpace()
        guard parser.i < bytes.count else { throw Error(kind: .empty, offset: 0, message: "no geometry (the text is empty)") }
        let srid = try parser.srid()
        let shape = try parser.shape(depth: 0)
        parser.skipSpace()
        guard parser.i == bytes.count else {
            throw Error(kind: .trailingContent, offset: parser.i, message: "unexpected \(parser.describeNext()) after the geometry")
        }
        let dims = parser.dims ?? Parser.Dims(z: false, m: false)
        return (Parser.geometry(shape, dims), srid)
    }

    /// What the start of a WKT text declares, read without parsing the coordinates.
    struct Header {
        var type: GeometryType
        var hasZ: Bool
        var hasM: Bool
        var srid: Int32?
    }

    /// The type, dimensions and SRID `bytes` start with, when they look like WKT: a known
    /// type keyword followed by `(` or `EMPTY`. Undeclared dimensions are counted from the
    /// first position.
    static func header(_ bytes: UnsafeBufferPointer<UInt8>) -> Header? {
        var parser = Parser(bytes)
        parser.skipSpace()
        let srid: Int32?
        let type: GeometryType
        do throws(Error) {
            srid = try parser.srid()
            type = try parser.tag()
        } catch {
            return nil
        }
        parser.skipSpace()
        if parser.peekWord(is: "EMPTY") {
            let dims = parser.dims ?? Parser.Dims(z: false, m: false)
            return Header(type: type, hasZ: dims.z, hasM: dims.m, srid: srid)
        }
        guard parser.i < bytes.count, bytes[parser.i] == UInt8(ascii: "(") else { return nil }
        if let dims = parser.dims { return Header(type: type, hasZ: dims.z, hasM: dims.m, srid: srid) }
        // Count the coordinates of the first position, after any opening parentheses (and a
        // collection member's tag, which is skipped as letters).
        var count = 0
        while parser.i < bytes.count, count == 0 {
            let c = bytes[parser.i]
            if Parser.startsNumber(c) {
                while parser.i < bytes.count, DecimalText.scan(bytes, &parser.i, .lenient) != nil {
                    count += 1
                    parser.skipSpace()
                }
                break
            }
            parser.i += 1
        }
        return Header(type: type, hasZ: count >= 3, hasM: count >= 4, srid: srid)
    }

    struct Parser {
        struct Dims: Equatable {
            var z: Bool
            var m: Bool
            var count: Int { 2 + (z ? 1 : 0) + (m ? 1 : 0) }
            var tag: String { z ? (m ? "ZM" : "Z") : (m ? "M" : "2D") }
        }

        let s: UnsafeBufferPointer<UInt8>
        var i = 0
        /// The dimensions of every position, once a `Z`/`M`/`ZM` tag or the first position
        /// has fixed them.
        var dims: Dims?

        init(_ s: UnsafeBufferPointer<UInt8>) { self.s = s }

        static func startsNumber(_ c: UInt8) -> Bool {
            c &- 48 < 10 || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
        }

        static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) &- 97 < 26 }

        mutating func skipSpace() {
            while i < s.count, s[i] == 0x20 || s[i] == 0x09 || s[i] == 0x0A || s[i] == 0x0D { i += 1 }
        }

        /// A stray character, or the end of the text where more was expected.
        var unexpected: Error.Kind { i < s.count ? .unexpectedCharacter : .unexpectedEnd }

        func describeNext() -> String {
            guard i < s.count else { return "end of text" }
            let c = s[i]
            if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
            return "byte 0x\(String(c, radix: 16))"
        }

        /// The letters at `i`, uppercased, without consuming them.
        func peekWord() -> (word: [UInt8], end: Int) {
            var j = i
            var word: [UInt8] = []
            while j < s.count, Self.isLetter(s[j]), word.count < 24 {
                word.append(s[j] & ~0x20)
                j += 1
            }
            return (word, j)
        }

        func peekWord(is keyword: StaticString) -> Bool {
            let (word, end) = peekWord()
            guard word.count == keyword.utf8CodeUnitCount else { return false }
            guard end == s.count || !Self.isLetter(s[end]) else { return false }
            return word.elementsEqual(UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount))
        }

        mutating func expect(_ c: UInt8) throws(Error) {
            skipSpace()
            guard i < s.count, s[i] == c else {
                throw Error(kind: unexpected, offset: i, message: "expected '\(Character(Unicode.Scalar(c)))', found \(describeNext())")
            }
            i += 1
        }

        /// Reads an EWKT `SRID=n;` prefix if there is one.
        mutating func srid() throws(Error) -> Int32? {
            guard peekWord(is: "SRID") else { return nil }
            let start = i
            i += 4
            skipSpace()
            guard i < s.count, s[i] == UInt8(ascii: "=") else { throw Error(kind: .invalidSRID, offset: i, message: "expected '=' after SRID") }
            i += 1
            skipSpace()
            var value: Int64 = 0
            let digits = i
            while i < s.count, s[i] &- 48 < 10 {
                value = value * 10 + Int64(s[i] &- 48)
                guard value <= Int64(Int32.max) else { throw Error(kind: .invalidSRID, offset: start, message: "SRID too large") }
                i += 1
            }
            guard i > digits else { throw Error(kind: .invalidSRID, offset: i, message: "expected the SRID's digits, found \(describeNext())") }
            skipSpace()
            guard i < s.count, s[i] == UInt8(ascii: ";") else { throw Error(kind: .invalidSRID, offset: i, message: "expected ';' after the SRID") }
            i += 1
            skipSpace()
            return Int32(value)
        }

        private static let keywords: [(name: [UInt8], type: GeometryType)] = {
            let names: [(String, GeometryType)] = [
                ("POINT", .point), ("LINESTRING", .lineString), ("POLYGON", .polygon),
                ("MULTIPOINT", .multiPoint), ("MULTILINESTRING", .multiLineString),
                ("MULTIPOLYGON", .multiPolygon), ("GEOMETRYCOLLECTION", .geometryCollection),
            ]
            return names.map { (Array($0.0.utf8), $0.1) }
        }()

        /// Reads a type keyword and its `Z`/`M`/`ZM` tag, written apart ("POINT Z") or
        /// joined ("POINTZ"), and fixes the dimensions a tag declares.
        mutating func tag() throws(Error) -> GeometryType {
            skipSpace()
            let start = i
            let (word, end) = peekWord()
            guard !word.isEmpty else {
                throw Error(kind: unexpected, offset: i, message: "expected a geometry type such as POINT or POLYGON, found \(describeNext())")
            }
            var declared: Dims?
            var type = Self.keywords.first { $0.name == word }?.type
            if type == nil {
                for (suffix, d) in [("ZM", Dims(z: true, m: true)), ("Z", Dims(z: true, m: false)), ("M", Dims(z: false, m: true))] {
                    let tail = Array(suffix.utf8)
                    if word.count > tail.count, word.suffix(tail.count).elementsEqual(tail),
                        let match = Self.keywords.first(where: { $0.name.elementsEqual(word.dropLast(tail.count)) })
                    {
                        type = match.type
                        declared = d
                        break
                    }
                }
            }
            guard let type else {
                throw Error(kind: .unsupportedType, offset: start, message: "unknown or unsupported geometry type '\(String(decoding: word, as: UTF8.self))'")
            }
            i = end
            skipSpace()
            if declared == nil {
                let (next, nextEnd) = peekWord()
                switch next {
                case Array("Z".utf8): declared = Dims(z: true, m: false)
                case Array("M".utf8): declared = Dims(z: false, m: true)
                case Array("ZM".utf8): declared = Dims(z: true, m: true)
                default: break
                }
                if declared != nil { i = nextEnd }
            }
            if let declared {
                if let dims, dims != declared {
                    throw Error(kind: .mixedDimensions, offset: start, message: "a \(declared.tag) geometry inside a \(dims.tag) one")
                }
                dims = declared
            }
            return type
        }

        /// Reads a tagged geometry: its keyword, then `EMPTY` or its coordinates.
        mutating func shape(depth: Int) throws(Error) -> Shape {
            guard depth <= WKT.maximumDepth else {
                throw Error(kind: .tooDeep, offset: i, message: "geometry collections nested deeper than \(WKT.maximumDepth)")
            }
            let type = try tag()
            skipSpace()
            if peekWord(is: "EMPTY") {
                i += 5
                switch type {
                case .point: return .simple(.point(Position(x: .nan, y: .nan)))
                case .lineString: return .simple(.lineString([]))
                case .polygon: return .simple(.polygon([]))
                case .multiPoint: return .simple(.multiPoint([]))
                case .multiLineString: return .simple(.multiLineString([]))
                case .multiPolygon: return .simple(.multiPolygon([]))
                case .geometryCollection, .geometry: return .collection([])
                }
            }
            switch type {
            case .point:
                try expect(UInt8(ascii: "("))
                let p = try position()
                try expect(UInt8(ascii: ")"))
                return .simple(.point(p))
            case .lineString:
                return .simple(.lineString(try positions()))
            case .polygon:
                return .simple(.polygon(try rings()))
            case .multiPoint:
                var points: [Position] = []
                try list { (parser: inout Parser) throws(Error) in
                    parser.skipSpace()
                    if parser.peekWord(is: "EMPTY") {
                        parser.i += 5
                    } else if parser.i < parser.s.count, parser.s[parser.i] == UInt8(ascii: "(") {
                        parser.i += 1
                        points.append(try parser.position())
                        try parser.expect(UInt8(ascii: ")"))
                    } else {
                        points.append(try parser.position())
                    }
                }
                return .simple(.multiPoint(points))
            case .multiLineString:
                var lines: [[Position]] = []
                try list { (parser: inout Parser) throws(Error) in
                    lines.append(try parser.emptyOr { (p: inout Parser) throws(Error) in try p.positions() })
                }
                return .simple(.multiLineString(lines))
            case .multiPolygon:
                var polygons: [[[Position]]] = []
                try list { (parser: inout Parser) throws(Error) in
                    polygons.append(try parser.emptyOr { (p: inout Parser) throws(Error) in try p.rings() })
                }
                return .simple(.multiPolygon(polygons))
            case .geometryCollection, .geometry:
                var members: [Shape] = []
                try list { (parser: inout Parser) throws(Error) in
                    members.append(try parser.shape(depth: depth + 1))
                }
                return .collection(members)
            }
        }

        /// A parsed geometry before its dimensions are final: a collection's members are
        /// given the dimensions once the whole text is read.
        indirect enum Shape {
            case simple(Geometry.Shape)
            case collection([Shape])
        }

        static func geometry(_ shape: Shape, _ dims: Dims) -> Geometry {
            switch shape {
            case .simple(let s): return Geometry(s, hasZ: dims.z, hasM: dims.m)
            case .collection(let members):
                return Geometry(.geometryCollection(members.map { geometry($0, dims) }), hasZ: dims.z, hasM: dims.m)
            }
        }

        /// `( item, item, ... )`.
        mutating func list(_ item: (inout Parser) throws(Error) -> Void) throws(Error) {
            try expect(UInt8(ascii: "("))
            while true {
                try item(&self)
                skipSpace()
                guard i < s.count else { throw Error(kind: .unexpectedEnd, offset: i, message: "the text ends before ')'") }
                if s[i] == UInt8(ascii: ",") {
                    i += 1
                } else if s[i] == UInt8(ascii: ")") {
                    i += 1
                    return
                } else {
                    throw Error(kind: unexpected, offset: i, message: "expected ',' or ')', found \(describeNext())")
                }
            }
        }

        mutating func emptyOr<T: RangeReplaceableCollection>(_ body: (inout Parser) throws(Error) -> T) throws(Error) -> T {
            skipSpace()
            if peekWord(is: "EMPTY") {
                i += 5
                return T()
            }
            return try body(&self)
        }

        mutating func positions() throws(Error) -> [Position] {
            var result: [Position] = []
            try list { (parser: inout Parser) throws(Error) in result.append(try parser.position()) }
            return result
        }

        mutating func rings() throws(Error) -> [[Position]] {
            var result: [[Position]] = []
            try list { (parser: inout Parser) throws(Error) in result.append(try parser.positions()) }
            return result
        }

        mutating func position() throws(Error) -> Position {
            var values: (Double, Double, Double, Double) = (0, 0, 0, 0)
            var count = 0
            skipSpace()
            let start = i
            while i < s.count, Self.startsNumber(s[i]) {
                let numberStart = i
                guard let v = DecimalText.scan(s, &i, .lenient) else {
                    throw Error(kind: .invalidNumber, offset: numberStart, message: "expected a number, found \(describeNext())")
                }
                guard count < 4 else { throw Error(kind: .invalidPosition, offset: numberStart, message: "a position with more than 4 coordinates") }
                switch count {
                case 0: values.0 = v
                case 1: values.1 = v
                case 2: values.2 = v
                default: values.3 = v
                }
                count += 1
                // Numbers are separated by whitespace: "1.5.2" or "1-2" is not two numbers.
                guard i == s.count || s[i] == 0x20 || s[i] == 0x09 || s[i] == 0x0A || s[i] == 0x0D
                    || s[i] == UInt8(ascii: ",") || s[i] == UInt8(ascii: ")")
                else { throw Error(kind: .invalidNumber, offset: i, message: "unexpected \(describeNext()) in a number") }
                skipSpace()
            }
            guard count >= 2 else {
                if count == 0 { throw Error(kind: unexpected, offset: i, message: "expected a coordinate, found \(describeNext())") }
                throw Error(kind: .invalidPosition, offset: start, message: "a position needs at least x and y")
            }
            let d: Dims
            if let dims {
                d = dims
                guard count == d.count else {
                    throw Error(kind: .mixedDimensions, offset: start, message: "a position with \(count) coordinates in a \(d.tag) geometry, which has \(d.count)")
                }
            } else {
                d = Dims(z: count >= 3, m: count == 4)
                dims = d
            }
            switch (d.z, d.m) {
            case (false, false): return Position(x: values.0, y: values.1)
            case (true, false): return Position(x: values.0, y: values.1, z: values.2)
            case (false, true): return Position(x: values.0, y: values.1, m: values.2)
            case (true, true): return Position(x: values.0, y: values.1, z: values.2, m: values.3)
            }
        }
    }
}
