#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookPackage

/// Splits a CSV file into records and cells (RFC 4180), reading it a chunk at a time, so
/// memory is bounded by the chunk size and the longest record.
///
/// A quote opens a quoted cell only at the cell's start; inside, `""` is a quote and
/// delimiters and line breaks are data. Text after a closing quote is kept (`"a"b` is `ab`),
/// and a quote inside an unquoted cell is data. Records end at LF, CRLF or a lone CR, or at
/// the end of the file. Empty lines are skipped. Not Sendable: one task reads a file.
final class CSVTokenizer {
    /// A cell of the current record: its raw bytes in the buffer, quotes included.
    struct Cell {
        var start: Int
        var end: Int
    }

    /// A record longer than this is refused rather than buffered: most likely a quote was left
    /// open and the rest of the file reads as one cell.
    static let maximumRecordSize = 256 << 20

    let file: RandomAccessFile
    let delimiter: UInt8
    /// How many cells the current record has.
    private(set) var cellCount = 0
    /// The cells of the current record, kept out of an array so that splitting a record
    /// pays no exclusivity or uniqueness checks per cell.
    private var cells: UnsafeMutablePointer<Cell>
    private var cellCapacity = 64
    /// The line the current record starts on, 1-based.
    private(set) var recordLine = 0

    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes of `buffer` hold file data.
    private var filled = 0
    /// The first byte of `buffer` not yet split into records.
    private var position = 0
    /// The file offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    /// Whether `buffer` holds the file up to its end.
    private var atEnd = false
    /// The line `position` is on.
    private var line = 1
    /// 256 flags: the bytes that end an unquoted run (the delimiter, quote, CR and LF).
    private let special: UnsafeMutablePointer<Bool>
    /// Where a quoted cell with doubled quotes is undoubled.
    private var scratch: [UInt8] = []

    /// Opens the CSV file at `path` past its byte order mark, with the delimiter `options`
    /// give or the header row suggests, and reads the header row into the current record.
    /// A file that cannot be opened, a delimiter that cannot be one, or an empty file is refused.
    static func open(_ path: String, options: CSVOptions) throws(DataError) -> CSVTokenizer {
        let file: RandomAccessFile
        do {
            file = try RandomAccessFile(path: path)
        } catch {
            throw DataError(kind: .file(error.kind), path: path, message: "cannot open: \(error.message)")
        }
        let head: [UInt8]
        do {
            head = try file.read(at: 0, count: Int(min(file.size, 1 << 16)))
        } catch {
            throw DataError(kind: .file(error.kind), path: path, message: "cannot read: \(error.message)")
        }
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let delimiter = options.delimiter ?? head.withUnsafeBufferPointer {
            detectDelimiter(UnsafeBufferPointer(rebasing: $0[bom...]))
        }
        guard delimiter != quote, delimiter != cr, delimiter != lf else {
            throw DataError(kind: .invalidOption, path: path, message: "the delimiter cannot be a double quote or a line break")
        }
        let tokenizer = CSVTokenizer(file: file, delimiter: delimiter, chunkSize: options.chunkSize)
        tokenizer.seek(to: Int64(bom), line: 1)
        guard try tokenizer.nextRecord() else {
            throw DataError(kind: .empty, path: path, message: "the file is empty; a CSV file needs a header row naming its columns")
        }
        return tokenizer
    }

    /// The current record's cells as text in `encoding`, trimmed.
    func texts(_ encoding: CSVOptions.Encoding) -> [String] {
        (0..<cellCount).map { k in withCell(k) { bytes, _ in encoding.decode(bytes).text.trimming(" \t\r\n") } }
    }

    init(file: RandomAccessFile, delimiter: UInt8, chunkSize: Int) {
        self.file = file
        self.delimiter = delimiter
        capacity = max(chunkSize, 16)
        buffer = .allocate(capacity: capacity)
        cells = .allocate(capacity: cellCapacity)
        special = .allocate(capacity: 256)
        special.initialize(repeating: false, count: 256)
        for byte in [delimiter, Self.quote, Self.cr, Self.lf] { special[Int(byte)] = true }
        seek(to: 0, line: 1)
    }

    deinit {
        buffer.deallocate()
        cells.deallocate()
        special.deallocate()
    }

    static let quote = UInt8(ascii: "\"")
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A

    /// Starts reading again at byte `offset` of the file, which is on line `line`.
    func seek(to offset: Int64, line: Int) {
        bufferOffset = offset
        filled = 0
        position = 0
        atEnd = offset >= file.size
        self.line = line
        cellCount = 0
    }

    /// The file offset just past the current record.
    var offset: Int64 { bufferOffset + Int64(position) }
    /// The line just past the current record.
    var nextLine: Int { line }

    /// Reads the next record into `cells`; false at the end of the file.
    func nextRecord() throws(DataError) -> Bool {
        while true {
            switch try split() {
            case .record(let end, let lines):
                position = end
                recordLine = line
                line += lines
                if cellCount == 1 && cells[0].start == cells[0].end { continue }
                return true
            case .needMore:
                try refill()
            case .endOfFile:
                return false
            }
        }
    }

    /// Calls `body` with the bytes of cell `index` of the current record, surrounding quotes
    /// removed and doubled quotes undoubled, and whether the cell was quoted. The bytes are
    /// valid during the call only.
    func withCell<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, _ quoted: Bool) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < cellCount, "cell \(index) of a record of \(cellCount)")
        let cell = cells[index]
        let raw = UnsafeBufferPointer(start: buffer + cell.start, count: cell.end - cell.start)
        guard raw.count > 0, raw[0] == Self.quote else { return try body(raw, false) }
        // The usual case: one pair of quotes around the whole cell and none inside.
        if raw.count >= 2, raw[raw.count - 1] == Self.quote,
            memchr(raw.baseAddress! + 1, Int32(Self.quote), raw.count - 2) == nil
        {
            return try body(UnsafeBufferPointer(rebasing: raw[1..<(raw.count - 1)]), true)
        }
        scratch.removeAll(keepingCapacity: true)
        var inQuotes = true
        var j = 1
        while j < raw.count {
            let c = raw[j]
            if inQuotes && c == Self.quote {
                if j + 1 < raw.count && raw[j + 1] == Self.quote {
                    scratch.append(c)
                    j += 2
                    continue
                }
                inQuotes = false
            } else {
                scratch.append(c)
            }
            j += 1
        }
        return try scratch.withUnsafeBufferPointer { try body($0, true) }
    }

    private enum Split {
        case record(end: Int, lines: Int)
        case needMore
        case endOfFile
    }

    /// Splits the record at `position` into `cells`, if the buffer holds all of it.
    private func split() throws(DataError) -> Split {
        let b = buffer
        let n = filled
        var i = position
        if i == n { return atEnd ? .endOfFile : .needMore }
        var cellStart = i
        var lines = 0
        let special = self.special
        var cells = self.cells
        var capacity = cellCapacity
        var count = 0
        defer {
            self.cells = cells
            cellCapacity = capacity
            cellCount = count
        }
        func add(_ start: Int, _ end: Int) {
            if count == capacity {
                let grown = UnsafeMutablePointer<Cell>.allocate(capacity: capacity * 2)
                grown.moveInitialize(from: cells, count: count)
                cells.deallocate()
                cells = grown
                capacity *= 2
            }
            cells[count] = Cell(start: start, end: end)
            count += 1
        }
        while true {
            // The hot loop: ordinary bytes of an unquoted cell.
            while i < n && !special[Int(b[i])] { i += 1 }
            if i == n {
                if !atEnd { return .needMore }
                add(cellStart, i)
                return .record(end: i, lines: 1)
            }
            let c = b[i]
            if c == delimiter {
                add(cellStart, i)
                i += 1
                cellStart = i
            } else if c == Self.lf {
                add(cellStart, i)
                return .record(end: i + 1, lines: lines + 1)
            } else if c == Self.cr {
                if i + 1 == n && !atEnd { return .needMore }
                add(cellStart, i)
                let end = i + 1 < n && b[i + 1] == Self.lf ? i + 2 : i + 1
                return .record(end: end, lines: lines + 1)
            } else if i == cellStart {
                // An opening quote: find the closing one, past doubled quotes.
                i += 1
                while true {
                    guard i < n else {
                        guard atEnd else { return .needMore }
                        throw DataError(
                            kind: .unclosedQuote, path: file.path, location: "line \(line)",
                            message: "a quoted cell starting on this line is never closed: the file ends inside it")
                    }
                    let d = b[i]
                    if d == Self.quote {
                        if i + 1 == n && !atEnd { return .needMore }
                        if i + 1 < n && b[i + 1] == Self.quote {
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    if d == Self.lf { lines += 1 }
                    i += 1
                }
            } else {
                // A quote inside an unquoted cell, or after a closing quote: data.
                i += 1
            }
        }
    }

    /// Moves the unsplit bytes to the front of the buffer and reads more of the file after them.
    private func refill() throws(DataError) {
        if position > 0 {
            let kept = filled - position
            if kept > 0 { memmove(buffer, buffer + position, kept) }
            bufferOffset += Int64(position)
            filled = kept
            position = 0
        }
        if filled == capacity {
            guard capacity < Self.maximumRecordSize else {
                throw DataError(
                    kind: .recordTooLong, path: file.path, location: "line \(line)",
                    message: "a record longer than \(Self.maximumRecordSize >> 20) MiB; is a quote left open?")
            }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.update(from: buffer, count: filled)
            buffer.deallocate()
            buffer = grown
            capacity *= 2
        }
        let start = bufferOffset + Int64(filled)
        let count = Int(min(Int64(capacity - filled), file.size - start))
        if count > 0 {
            do {
                try file.read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: count), at: start)
            } catch {
                throw DataError(kind: .file(error.kind), path: file.path, location: "line \(line)", message: "cannot read: \(error.message)")
            }
            filled += count
        }
        atEnd = start + Int64(count) >= file.size
    }

    /// The delimiter a header row uses: whichever of `,` `;` tab `|` occurs most often outside
    /// quotes in the first record of `bytes`, the first of them on a tie, `,` when none does.
    static func detectDelimiter(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt8 {
        let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]
        var counts = [Int](repeating: 0, count: candidates.count)
        var inQuotes = false
        for c in bytes {
            if c == quote {
                inQuotes.toggle()
            } else if !inQuotes {
                if c == lf || c == cr { break }
                if let k = candidates.firstIndex(of: c) { counts[k] += 1 }
            }
        }
        guard let best = counts.max(), best > 0 else { return UInt8(ascii: ",") }
        return candidates[counts.firstIndex(of: best)!]
    }
}
