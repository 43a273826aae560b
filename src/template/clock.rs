//! PromptKit's time variables: placeholders filled from the clock (in UTC) when a
//! template uses them and no value is given.

use std::fmt::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The names, in the order the template reference (docs/src/reference/templates.md) lists them.
pub const TIME_VARIABLES: [&str; 6] = [
    "current_time",
    "current_date",
    "current_year",
    "current_month",
    "current_weekday",
    "current_hour",
];

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// 1970-01-01 was a Thursday.
const WEEKDAYS_FROM_THURSDAY: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];

const SECONDS_PER_DAY: u64 = 86_400;

pub fn is_time_variable(name: &str) -> bool {
    TIME_VARIABLES.contains(&name)
}

/// The value of time variable `name` at `now`, or `None` for any other name.
pub fn time_value(name: &str, now: SystemTime) -> Option<String> {
    // `2025-06-01T12:00:00Z`: every part is at a fixed place.
    let mut stamp = String::new();
    // Fails only for a time outside the years 1970 to 9999, which `--now` refuses.
    write!(stamp, "{}", humantime::format_rfc3339_seconds(now)).ok()?;
    let part = |range: std::ops::Range<usize>| stamp.get(range).unwrap_or_default().to_string();
    let value = match name {
        "current_time" => stamp.clone(),
        "current_date" => part(0..10),
        "current_year" => part(0..4),
        "current_month" => {
            let month: usize = part(5..7).parse().unwrap_or(1);
            MONTHS[(month.clamp(1, 12)) - 1].to_string()
        }
        "current_weekday" => {
            let days = since_epoch(now).as_secs() / SECONDS_PER_DAY;
            WEEKDAYS_FROM_THURSDAY[(days % 7) as usize].to_string()
        }
        "current_hour" => part(11..13),
        _ => return None,
    };
    Some(value)
}

fn since_epoch(now: SystemTime) -> Duration {
    now.duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// Why a text is not a time the time variables can show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    #[error("`{0}` is not an RFC 3339 time (like 2025-06-01T12:00:00Z)")]
    NotRfc3339(String),
    #[error("`{0}` is outside the years 1970 to 9999")]
    OutOfRange(String),
}

/// Reads an RFC 3339 time: `2025-06-01T12:00:00Z`, with optional fractional seconds,
/// or with a `+HH:MM` / `-HH:MM` offset instead of `Z`.
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, TimeError> {
    let bad = || TimeError::NotRfc3339(text.to_string());
    let text = text.trim();
    let (base, offset) = split_offset(text).ok_or_else(bad)?;
    let utc = humantime::parse_rfc3339(&format!("{base}Z")).map_err(|_| bad())?;
    // Local time = UTC + offset, so UTC = local - offset.
    let shifted = if offset >= 0 {
        utc.checked_sub(Duration::from_secs(offset.unsigned_abs()))
    } else {
        utc.checked_add(Duration::from_secs(offset.unsigned_abs()))
    };
    // What the time variables can show: years 1970 to 9999.
    let latest = UNIX_EPOCH + Duration::from_secs(253_402_300_799);
    shifted
        .filter(|t| *t >= UNIX_EPOCH && *t <= latest)
        .ok_or_else(|| TimeError::OutOfRange(text.to_string()))
}

/// The date-time part and the offset from UTC in seconds.
fn split_offset(text: &str) -> Option<(&str, i64)> {
    if let Some(base) = text.strip_suffix(['Z', 'z']) {
        return Some((base, 0));
    }
    let (base, zone) = text.split_at_checked(text.len().checked_sub(6)?)?;
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, minutes) = zone[1..].split_once(':')?;
    let (hours, minutes): (i64, i64) = (hours.parse().ok()?, minutes.parse().ok()?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((base, sign * (hours * 3600 + minutes * 60)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> SystemTime {
        parse_rfc3339(text).expect("a time")
    }

    #[test]
    fn every_variable_has_its_format() {
        let now = at("2025-06-01T09:05:07Z");
        let values: Vec<String> = TIME_VARIABLES
            .iter()
            .map(|name| time_value(name, now).expect("a time variable"))
            .collect();
        assert_eq!(
            values,
            [
                "2025-06-01T09:05:07Z",
                "2025-06-01",
                "2025",
                "June",
                "Sunday",
                "09"
            ]
        );
        assert_eq!(time_value("workflow_context", now), None);
    }

    #[test]
    fn weekdays_and_months_turn_over_at_midnight_utc() {
        let cases = [
            ("1970-01-01T00:00:00Z", "Thursday", "January"),
            ("2024-02-29T23:59:59Z", "Thursday", "February"),
            ("2024-03-01T00:00:00Z", "Friday", "March"),
            ("2026-12-31T12:00:00Z", "Thursday", "December"),
        ];
        for (text, weekday, month) in cases {
            assert_eq!(
                time_value("current_weekday", at(text)).as_deref(),
                Some(weekday)
            );
            assert_eq!(
                time_value("current_month", at(text)).as_deref(),
                Some(month)
            );
        }
    }

    #[test]
    fn times_the_variables_cannot_show_are_refused() {
        for text in ["1970-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"] {
            assert!(parse_rfc3339(text).is_err(), "{text}");
        }
        assert!(parse_rfc3339("9999-12-31T23:59:59Z").is_ok());
    }

    #[test]
    fn refusals_quote_the_text() {
        assert_eq!(
            parse_rfc3339(" yesterday")
                .expect_err("refused")
                .to_string(),
            "` yesterday` is not an RFC 3339 time (like 2025-06-01T12:00:00Z)"
        );
        assert_eq!(
            parse_rfc3339(" 1970-01-01T00:00:00+01:00").expect_err("refused"),
            TimeError::OutOfRange("1970-01-01T00:00:00+01:00".into())
        );
        assert_eq!(
            TimeError::OutOfRange("x".into()).to_string(),
            "`x` is outside the years 1970 to 9999"
        );
    }

    #[test]
    fn offsets_are_turned_into_utc() {
        assert_eq!(at("2025-06-01T02:30:00+02:30"), at("2025-06-01T00:00:00Z"));
        assert_eq!(at("2025-05-31T20:00:00-04:00"), at("2025-06-01T00:00:00Z"));
        assert_eq!(
            at("2025-06-01T00:00:00.250Z"),
            at("2025-06-01T00:00:00Z") + Duration::from_millis(250)
        );
        for bad in [
            "yesterday",
            "2025-06-01",
            "2025-06-01T00:00:00",
            "2025-06-01T00:00:00+25:00",
        ] {
            assert!(parse_rfc3339(bad).is_err(), "{bad}");
        }
    }
}
