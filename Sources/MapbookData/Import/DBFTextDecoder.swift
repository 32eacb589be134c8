#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import MapbookSupport
#endif

/// Turns the bytes of DBF text into strings in one code page.
///
/// UTF-8, ISO-8859-1 and windows-1252 are decoded here, exactly; any other code page a `.cpg`
/// or the DBF's language driver names goes through the C library's `iconv`. Without a
/// declared code page, text is read as UTF-8 and a value that is not valid UTF-8 as Latin-1,
/// which cannot fail and keeps every byte. Not Sendable: an iconv descriptor keeps state.
final class DBFTextDecoder {
    enum Kind: Equatable {
        case utf8, latin1, windows1252
        /// UTF-8, and Latin-1 for values that are not valid UTF-8.
        case utf8OrLatin1
        case iconv(String)
    }

    let kind: Kind
    private var converter: iconv_t?

    /// The encoding's name as users know it.
    var name: String {
        switch kind {
        case .utf8: return "UTF-8"
        case .latin1: return "ISO-8859-1"
        case .windows1252: return "windows-1252"
        case .utf8OrLatin1: return "UTF-8, Latin-1 where not valid UTF-8"
        case .iconv(let name): return name
        }
    }

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// A decoder for an encoding named by a user or a `.cpg` ("UTF-8", "1252", "88591",
    /// "ISO-8859-1", "latin1", "CP850", "Big5"), or nil when neither this type nor iconv knows it.
    ///
    /// Follows GDAL's reading of `.cpg` values: a bare number from 437 to 950 or 1250 to 1258
    /// is a Windows or DOS code page, "8859N" or "8859-N" is ISO-8859-N.
    /// The corresponding C function is `iconv_open`.
    convenience init?(name: String) {
        let upper = name.trimming(" \t\r\n").uppercased()
        let compact = upper.filter { $0 != "-" && $0 != "_" && $0 != " " }
        switch compact {
        case "": return nil
        case _ where compact.hasPrefix("UTF8"): self.init(.utf8)
        case "88591", "ISO88591", "LATIN1", "L1", "ISOLATIN1":
            self.init(.latin1)
        case "1252", "CP1252", "WINDOWS1252", "ANSI1252", "WIN1252":
            self.init(.windows1252)
        default:
            var iconvName = upper
            if let number = Int(compact), (437...950).contains(number) || (1250...1258).contains(number) {
                iconvName = "CP\(number)"
            } else if compact.hasPrefix("8859"), let part = Int(compact.dropFirst(4)) {
                iconvName = "ISO-8859-\(part)"
            } else if compact.hasPrefix("ANSI"), let number = Int(compact.dropFirst(4)) {
                iconvName = "CP\(number)"
            }
            let descriptor = iconv_open("UTF-8", iconvName)
            guard let descriptor, descriptor != iconv_t(bitPattern: -1) else { return nil }
            self.init(.iconv(iconvName))
            converter = descriptor
        }
    }

    deinit {
        if let converter { iconv_close(converter) }
    }

    /// The code page a DBF language driver id (header byte 29) stands for, or nil when the id
    /// is 0 (unset) or unknown. The table is GDAL's (`GetEncodingFromLDIDNumber`), except that
    /// 0x57 ("current ANSI code page", which ArcGIS writes) is read as windows-1252 where GDAL
    /// says ISO-8859-1: the two agree on every printable Latin-1 character, and windows-1252
    /// also gives 0x80 to 0x9F their printable meaning (0x80 is the euro sign) instead of C1
    /// control characters, which no attribute text means.
    static func codePage(languageDriver id: UInt8) -> String? {
        switch id {
        case 0x01, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x15, 0x18, 0x19, 0x1B: return "437"
        case 0x02, 0x0A, 0x0E, 0x10, 0x12, 0x14, 0x16, 0x1A, 0x1D, 0x25, 0x37: return "850"
        case 0x03, 0x57, 0x58, 0x59: return "1252"
        case 0x04: return "MACINTOSH"
        case 0x08, 0x17, 0x66: return "865"
        case 0x13, 0x7B: return "932"
        case 0x1C, 0x6C: return "863"
        case 0x1F, 0x22, 0x23, 0x40, 0x64, 0x87: return "852"
        case 0x24: return "860"
        case 0x26, 0x65: return "866"
        case 0x4D, 0x7A: return "936"
        case 0x4E, 0x79: return "949"
        case 0x4F, 0x78: return "950"
        case 0x50, 0x7C: return "874"
        case 0x67: return "861"
        case 0x6A, 0x86: return "737"
        case 0x6B, 0x88: return "857"
        case 0x96: return "MAC-CYRILLIC"
        case 0x97: return "MACCENTRALEUROPE"
        case 0xC8: return "1250"
        case 0xC9: return "1251"
        case 0xCA: return "1254"
        case 0xCB: return "1253"
        case 0xCC: return "1257"
        default: return nil
        }
    }

    /// Decodes `bytes`; `exact` is false when some bytes are not valid in the encoding (read
    /// as Latin-1 when no encoding was declared, otherwise replaced by U+FFFD).
    func decode(_ bytes: ArraySlice<UInt8>) -> (text: String, exact: Bool) {
        var ascii = true
        for i in bytes.indices where bytes[i] >= 0x80 {
            ascii = false
            break
        }
        if ascii { return (String(decoding: bytes, as: UTF8.self), true) }
        switch kind {
        case .utf8:
            if let text = String(validating: bytes, as: UTF8.self) { return (text, true) }
            return (String(decoding: bytes, as: UTF8.self), false)
        case .utf8OrLatin1:
            if let text = String(validating: bytes, as: UTF8.self) { return (text, true) }
            return (Self.latin1(bytes), false)
        case .latin1:
            return (Self.latin1(bytes), true)
        case .windows1252:
            var scalars = String.UnicodeScalarView()
            for byte in bytes {
                if byte >= 0x80 && byte < 0xA0 {
                    scalars.append(Unicode.Scalar(Self.windows1252High[Int(byte - 0x80)])!)
                } else {
                    scalars.append(Unicode.Scalar(byte))
                }
            }
            return (String(scalars), true)
        case .iconv:
            return convert(bytes)
        }
    }

    private static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    /// The corresponding C function is `iconv`.
    private func convert(_ bytes: ArraySlice<UInt8>) -> (text: String, exact: Bool) {
        guard let converter else { return (Self.latin1(bytes), false) }
        // One input byte never becomes more than 4 bytes of UTF-8.
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 4)
        var input = Array(bytes)
        var exact = true
        var produced = 0
        iconv(converter, nil, nil, nil, nil)  // reset the shift state
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                while inLeft > 0 {
                    if iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1 { break }
                    // An invalid or truncated sequence: write U+FFFD for one byte and go on.
                    guard errno == EILSEQ || errno == EINVAL, outLeft >= 3 else { break }
                    exact = false
                    for byte: UInt8 in [0xEF, 0xBF, 0xBD] {
                        outPointer!.pointee = CChar(bitPattern: byte)
                        outPointer! += 1
                    }
                    outLeft -= 3
                    inPointer! += 1
                    inLeft -= 1
                }
                produced = outBuffer.count - outLeft
            }
        }
        return (String(decoding: output[0..<produced], as: UTF8.self), exact)
    }

    /// windows-1252 0x80 to 0x9F, as the WHATWG Encoding Standard maps them: the five bytes
    /// Microsoft left unassigned (0x81, 0x8D, 0x8F, 0x90, 0x9D) stay the C1 controls of the
    /// same value, so every byte decodes and nothing is lost.
    static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]
}
