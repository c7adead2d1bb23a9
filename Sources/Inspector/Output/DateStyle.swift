import Foundation

/// How output writes a date. Core Data stores a date as seconds since 2001-01-01 00:00:00 UTC
/// and keeps no zone with it; output shows it as ISO 8601 in UTC unless asked for another
/// zone (an examiner's report is read in the device's local time; Photos keeps each asset's
/// zone in a column of its own), and can show the stored number beside it, which is what a
/// report quotes as evidence and what a predicate compares with.
public struct DateStyle: Sendable, Equatable {
    /// The zone a date is shown in.
    public enum Zone: Sendable, Equatable {
        /// UTC, written with `Z`: the default, and what `import` reads back.
        case utc
        /// A fixed offset east of UTC, in seconds (`+02:00`).
        case offset(Int)
        /// A zone of the system's time zone database (`Europe/Berlin`, `local`): its offset
        /// is the one in force at each date, summer time included.
        case named(TimeZone)

        /// The zone as the command line writes it.
        public var name: String {
            switch self {
            case .utc: return "UTC"
            case .offset(let seconds):
                let east = abs(seconds)
                let text = String(format: "%@%02d:%02d", seconds < 0 ? "-" : "+", east / 3600, east / 60 % 60)
                return east % 60 == 0 ? text : text + String(format: ":%02d", east % 60)
            case .named(let zone): return zone.identifier
            }
        }
    }

    public var zone: Zone
    /// Whether the stored value (seconds since 2001-01-01 UTC) is shown beside the date.
    public var showsStored: Bool

    public static let utc = DateStyle(zone: .utc, showsStored: false)

    public init(zone: Zone, showsStored: Bool) {
        self.zone = zone
        self.showsStored = showsStored
    }

    /// A zone as the command line writes it: `UTC` (or `Z`, `GMT`), `local` (the system's
    /// zone, `TZ` included), an offset (`+02:00`, `-0530`, `+2`) or a name of the time zone
    /// database (`Europe/Berlin`, `America/New_York`).
    public static func zone(parsing text: String) throws -> Zone {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "utc", "z", "gmt", "+00:00", "-00:00", "+0", "+00", "+0000": return .utc
        case "local":
            let current = TimeZone.current
            return current.identifier == "UTC" || current.identifier == "Etc/UTC" || current.identifier == "GMT" ? .utc : .named(current)
        default: break
        }
        if let first = trimmed.first, first == "+" || first == "-" {
            guard let seconds = offsetSeconds(trimmed.dropFirst()) else { throw unknownZone(text) }
            return .offset(first == "-" ? -seconds : seconds)
        }
        guard !trimmed.isEmpty, let named = TimeZone(identifier: trimmed) else { throw unknownZone(text) }
        return .named(named)
    }

    /// `HH`, `H`, `HH:MM` or `HHMM` as seconds, up to 18 hours (what `TimeZone` accepts).
    private static func offsetSeconds(_ text: Substring) -> Int? {
        let digits = text.filter { $0 != ":" }
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              text.filter({ $0 == ":" }).count <= 1 else { return nil }
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
                  let hours = Int(parts[0]), let minutes = Int(parts[1]), minutes < 60, hours <= 18 else { return nil }
            return hours * 3600 + minutes * 60
        }
        guard let value = Int(digits) else { return nil }
        let (hours, minutes) = digits.count <= 2 ? (value, 0) : (value / 100, value % 100)
        guard hours <= 18, minutes < 60, digits.count != 3 else { return nil }
        return hours * 3600 + minutes * 60
    }

    private static func unknownZone(_ text: String) -> CommandError {
        .usage("unknown time zone '\(text)' (use UTC, local, an offset such as +02:00, or a name such as Europe/Berlin)")
    }

    /// Seconds east of UTC at a date, or nil for UTC itself (written `Z`).
    func offset(at referenceSeconds: Double) -> Int? {
        switch zone {
        case .utc: return nil
        case .offset(let seconds): return seconds
        case .named(let zone):
            return zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: referenceSeconds))
        }
    }
}
