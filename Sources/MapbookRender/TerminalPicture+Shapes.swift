import CCairo

extension TerminalPicture {
    /// How far a pixel's colour must be from its cell's own (0 the same, 1 a channel's whole
    /// range) to be drawn as a shape: a line, an outline, a marker, an edge between fills.
    static let inkDistance = 0.2
    /// How far a cell's colour must be from the picture's background to be a shaded fill.
    static let tintDistance = 0.06

    /// `image` in `columns` x `rows` cells of a terminal without colour (`NO_COLOR`): shapes
    /// and shades in the terminal's own colours, the picture's background as blank cells.
    ///
    /// Colours cannot tell features apart here, so their kind shows in the characters. A cell
    /// takes its most common colour as its own: a fill's, shaded by how far it is from the
    /// picture's background (its most common colour) as `░`, `▒` or `▓`. What stands out of
    /// the cell's own colour (a line, an outline, a marker) is drawn over it as sextants, the
    /// cell in 2 x 3 parts each inked or not (a part is inked from a quarter of its pixels),
    /// and what is too small for a part as `·`.
    static func shapes(of image: RasterImage, columns: Int, rows: Int) -> String {
        guard columns > 0, rows > 0, image.width > 0, image.height > 0 else { return "" }
        let pixels = Pixels(image)
        let width = image.width, height = image.height
        let background = pixels.commonColor(0..<width, 0..<height)
        let cellWidth = Double(width) / Double(columns), cellHeight = Double(height) / Double(rows)
        /// Part `index` of `parts` equal parts of the pixels `from..<to`, never empty.
        func span(_ index: Int, of parts: Int, _ from: Int, _ to: Int) -> Range<Int> {
            let length = Double(to - from)
            let start = min(from + Int(length * Double(index) / Double(parts)), to - 1)
            return start..<max(from + Int(length * Double(index + 1) / Double(parts)), start + 1)
        }
        var out = "\u{1B}[0m"
        out.reserveCapacity(columns * rows * 4)
        for row in 0..<rows {
            if row > 0 { out += "\n" }
            let y0 = min(Int(Double(row) * cellHeight), height - 1), y1 = max(min(Int(Double(row + 1) * cellHeight), height), y0 + 1)
            for column in 0..<columns {
                let x0 = min(Int(Double(column) * cellWidth), width - 1), x1 = max(min(Int(Double(column + 1) * cellWidth), width), x0 + 1)
                let own = pixels.commonColor(x0..<x1, y0..<y1)
                var bits = 0, specks = 0
                for part in 0..<6 {
                    var inked = 0, count = 0
                    for y in span(part / 2, of: 3, y0, y1) {
                        for x in span(part % 2, of: 2, x0, x1) {
                            count += 1
                            if Pixels.distance(pixels[x, y], own) >= inkDistance { inked += 1 }
                        }
                    }
                    specks += inked
                    if inked * 4 >= count, inked > 0 { bits |= 1 << part }
                }
                if bits != 0 {
                    out.unicodeScalars.append(sextant(bits))
                } else if specks > 0 {
                    out += "·"
                } else {
                    let shade = Pixels.distance(own, background)
                    out += shade < tintDistance ? " " : shade < 0.3 ? "░" : shade < 0.55 ? "▒" : "▓"
                }
            }
        }
        return out
    }

    /// The Unicode character whose inked parts are `bits` (bit 0 the top left part, bit 1 the
    /// top right, down to bit 5 the bottom right): the halves are Block Elements, the other
    /// patterns the sextants of Symbols for Legacy Computing (U+1FB00-1FB3B, in order of their
    /// bits, skipping the halves).
    static func sextant(_ bits: Int) -> Unicode.Scalar {
        switch bits {
        case 0: return " "
        case 21: return "▌"
        case 42: return "▐"
        case 63: return "█"
        default: return Unicode.Scalar(0x1FB00 + UInt32(bits - 1 - (bits > 21 ? 1 : 0) - (bits > 42 ? 1 : 0)))!
        }
    }

    /// An image's colours over white, to read pixel by pixel.
    struct Pixels {
        typealias Color = (red: Double, green: Double, blue: Double)
        let width: Int
        var red: [UInt8], green: [UInt8], blue: [UInt8]

        /// The corresponding C functions are `cairo_surface_flush` and `cairo_image_surface_get_data`.
        init(_ image: RasterImage) {
            let surface = image.surface
            cairo_surface_flush(surface)
            width = image.width
            let count = image.width * image.height
            red = Array(repeating: 255, count: count)
            green = red
            blue = red
            guard let data = cairo_image_surface_get_data(surface) else { return }
            let stride = Int(cairo_image_surface_get_stride(surface))
            for y in 0..<image.height {
                for x in 0..<image.width {
                    // CAIRO_FORMAT_ARGB32: a native-endian word, colour premultiplied by alpha; over
                    // white, a channel is its premultiplied value plus what alpha leaves of white.
                    let word = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
                    let clear = 255 - Int(word >> 24 & 0xFF)
                    let i = y * width + x
                    red[i] = UInt8(min(Int(word >> 16 & 0xFF) + clear, 255))
                    green[i] = UInt8(min(Int(word >> 8 & 0xFF) + clear, 255))
                    blue[i] = UInt8(min(Int(word & 0xFF) + clear, 255))
                }
            }
        }

        subscript(x: Int, y: Int) -> Color {
            let i = y * width + x
            return (Double(red[i]), Double(green[i]), Double(blue[i]))
        }

        /// How far apart two colours are: 0 the same, 1 a channel's whole range (at most).
        static func distance(_ a: Color, _ b: Color) -> Double {
            let r = a.red - b.red, g = a.green - b.green, b = a.blue - b.blue
            return min((r * r + g * g + b * b).squareRoot() / 255, 1)
        }

        /// The most common colour of the pixels in `xs` x `ys`: colours binned by their top 4
        /// bits, the mean of the fullest bin.
        func commonColor(_ xs: Range<Int>, _ ys: Range<Int>) -> Color {
            func bin(_ i: Int) -> Int { Int(red[i] >> 4) << 8 | Int(green[i] >> 4) << 4 | Int(blue[i] >> 4) }
            var counts: [Int: Int] = [:]
            for y in ys {
                for x in xs { counts[bin(y * width + x), default: 0] += 1 }
            }
            guard let common = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key else { return (255, 255, 255) }
            var total = (0.0, 0.0, 0.0, 0.0)
            for y in ys {
                for x in xs where bin(y * width + x) == common {
                    let c = self[x, y]
                    total = (total.0 + c.red, total.1 + c.green, total.2 + c.blue, total.3 + 1)
                }
            }
            return (total.0 / total.3, total.1 / total.3, total.2 / total.3)
        }
    }
}
