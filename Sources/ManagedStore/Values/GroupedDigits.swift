extension BinaryInteger {
    /// The number with its thousands grouped by commas ("1,234,567"), whatever the machine's
    /// region: Foundation's `formatted()` follows the user's locale ("1.234.567" on a German
    /// Mac), and documents, tests and scripts read these counts as they are written here.
    public var groupedDigits: String {
        let digits = String(self.magnitude)
        var out = self < 0 ? "-" : ""
        out.reserveCapacity(digits.count + digits.count / 3 + 1)
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
