/// Numbers: checked against the JSON grammar, and converted to `Double` only when needed.
extension JSONCursor {
    /// Reads a number with correct rounding, like `strtod`.
    ///
    /// Most numbers in RoomPlan exports are `Float` digits: up to nine significant digits and a
    /// small exponent. Those convert exactly with one multiplication or division of exactly
    /// representable values; longer ones go through the standard library's parser.
    ///
    /// - Throws: When the text is not a JSON number, or its value is too large for a `Double` or
    ///   so small that it would read as 0.
    @inlinable
    package mutating func readNumber() throws(JSONError) -> Double {
        skipWhitespace()
        let start = position
        let number = try scanNumber()
        let magnitude: Double
        if number.isExact, number.mantissa <= 1 << 53, abs(number.exponent) < Self.exactPowersOfTen.count {
            let power = Self.exactPowersOfTen[abs(number.exponent)]
            let mantissa = Double(number.mantissa)
            magnitude = number.exponent < 0 ? mantissa / power : mantissa * power
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< position]), as: UTF8.self)
            magnitude = Double(text).map(abs) ?? .infinity
        }
        guard magnitude.isFinite, magnitude != 0 || number.mantissa == 0 else {
            throw JSONError("number out of range of a Double", at: start)
        }
        return number.isNegative ? -magnitude : magnitude
    }

    /// Moves past a number, checking its syntax.
    @inlinable
    package mutating func skipNumber() throws(JSONError) {
        _ = try scanNumber()
    }

    /// 10⁰ through 10²², every one exactly representable as a `Double`.
    @usableFromInline static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// A number's value as `mantissa × 10^exponent`, exact when `isExact`.
    @usableFromInline
    struct DecimalNumber {
        @usableFromInline var isNegative = false
        /// Up to 19 significant digits, without trailing zeros when it matters.
        @usableFromInline var mantissa: UInt64 = 0
        @usableFromInline var exponent = 0
        /// Whether no significant digit had to be dropped from `mantissa`.
        @usableFromInline var isExact = true

        @inlinable init() {}
    }

    /// Moves past a number, checking its syntax, and returns its decimal value.
    @inlinable
    mutating func scanNumber() throws(JSONError) -> DecimalNumber {
        var number = DecimalNumber()
        var significantDigits = 0

        // Appends one digit, dropping it (and noting the loss) when 19 are already held.
        func append(_ digit: UInt8, to number: inout DecimalNumber) -> Bool {
            guard significantDigits < 19 else {
                number.isExact = number.isExact && digit == .digitZero
                return false
            }
            number.mantissa = number.mantissa &* 10 &+ UInt64(digit &- .digitZero)
            if number.mantissa != 0 { significantDigits += 1 }
            return true
        }

        if current == .minus {
            number.isNegative = true
            position += 1
            guard current.isDigit else { throw failure(expectedSyntax: "a digit in a number") }
        }
        guard current.isDigit else { throw failure(expected: "a number") }
        if current == .digitZero {
            position += 1
            if current.isDigit { throw failure("a number must not start with 0 followed by digits") }
        } else {
            while current.isDigit {
                if !append(current, to: &number) { number.exponent += 1 }
                position += 1
            }
        }
        if current == .dot {
            position += 1
            guard current.isDigit else { throw failure(expectedSyntax: "a digit after the decimal point") }
            while current.isDigit {
                if append(current, to: &number) { number.exponent -= 1 }
                position += 1
            }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            var exponentIsNegative = false
            if current == .minus || current == .plus {
                exponentIsNegative = current == .minus
                position += 1
            }
            guard current.isDigit else { throw failure(expectedSyntax: "a digit in the exponent") }
            var exponent = 0
            while current.isDigit {
                // Saturates far beyond any Double; the standard library's parser handles the rest.
                exponent = min(exponent * 10 + Int(current &- .digitZero), 1_000_000)
                position += 1
            }
            number.exponent += exponentIsNegative ? -exponent : exponent
        }
        // Trailing zeros can make a mantissa too large for the exact path.
        if number.mantissa > 1 << 53 {
            while number.mantissa % 10 == 0 {
                number.mantissa /= 10
                number.exponent += 1
            }
        }
        return number
    }
}
