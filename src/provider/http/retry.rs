//! When a failed attempt is tried again, and how long to wait first.

use std::time::{Duration, SystemTime};

/// One attempt and up to three retries.
pub(super) const ATTEMPTS: u32 = 4;

const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// The longest a server's `Retry-After` is heeded.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The latest year a `Retry-After` date may name; a later one is no date a server
/// means, and would overflow the arithmetic.
const LAST_YEAR: i64 = 9999;

/// Statuses that say "not now" rather than "not this request": a request timeout, a
/// conflict with another request, rate limits, server errors and gateways, and
/// Anthropic's 529 (overloaded).
pub(super) fn retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// The wait before retry number `retry` (0 for the first): 0.5 s, doubling, at most 8 s.
pub(super) fn backoff(retry: u32) -> Duration {
    FIRST_BACKOFF
        .checked_mul(1u32.checked_shl(retry).unwrap_or(u32::MAX))
        .map_or(MAX_BACKOFF, |wait| wait.min(MAX_BACKOFF))
}

/// The wait before a retry: the server's `Retry-After` when it sent one (at most
/// 60 s), else the backoff; never longer than `limit`, the time one whole attempt
/// may take.
pub(super) fn wait_before(retry: u32, retry_after: Option<Duration>, limit: Duration) -> Duration {
    let wait = match retry_after {
        Some(asked) => asked.min(MAX_RETRY_AFTER),
        None => backoff(retry),
    };
    wait.min(limit)
}

/// A `Retry-After` value: seconds, or an HTTP date (then the time until it, zero if
/// past). `None` for anything else.
pub(super) fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A `retry-after-ms` value: milliseconds, possibly with a fraction. `None` for
/// anything else.
pub(super) fn retry_after_ms(value: &str) -> Option<Duration> {
    let millis: f64 = value.trim().parse().ok()?;
    // Refuses negative, infinite and not-a-number values.
    Duration::try_from_secs_f64(millis / 1000.0).ok()
}

/// An IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, the date form HTTP servers send.
fn http_date(text: &str) -> Option<SystemTime> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_weekday, day, month, year, time, "GMT"] = parts[..] else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let day: i64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let year: i64 = year
        .parse()
        .ok()
        .filter(|y| (1970..=LAST_YEAR).contains(y))?;
    let mut clock = time.split(':').map(|n| n.parse::<i64>().ok());
    let (Some(Some(h)), Some(Some(m)), Some(Some(s)), None) =
        (clock.next(), clock.next(), clock.next(), clock.next())
    else {
        return None;
    };
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    let seconds = days_since_epoch(year, month, day) * 86_400 + h * 3600 + m * 60 + s;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(u64::try_from(seconds).ok()?))
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, counting years
/// from March so that the leap day falls last.
fn days_since_epoch(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_worth_a_retry() {
        for status in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(retryable(status), "{status}");
        }
        for status in [400, 401, 403, 404, 413, 422, 501] {
            assert!(!retryable(status), "{status}");
        }
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let waits: Vec<u128> = (0..7).map(|n| backoff(n).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
        assert_eq!(backoff(40), MAX_BACKOFF);
    }

    #[test]
    fn retry_after_replaces_the_backoff_within_limits() {
        let minute = Duration::from_secs(120);
        assert_eq!(wait_before(2, None, minute), Duration::from_secs(2));
        assert_eq!(wait_before(2, Some(Duration::ZERO), minute), Duration::ZERO);
        assert_eq!(
            wait_before(0, Some(Duration::from_secs(3600)), minute),
            Duration::from_secs(60)
        );
        let short = Duration::from_millis(300);
        assert_eq!(wait_before(1, None, short), short);
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_767); // 1994-11-06 08:49:27 UTC
        assert_eq!(retry_after(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            http_date("Thu, 29 Feb 2024 23:59:59 GMT"),
            Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_709_251_199))
        );
        for bad in [
            "",
            "-1",
            "soon",
            "Sun, 06 Nov 1994 08:49:37 CET",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:00:00 GMT",
        ] {
            assert_eq!(retry_after(bad, now), None, "{bad:?}");
        }
    }

    #[test]
    fn a_date_in_an_absurd_year_is_no_date() {
        let now = SystemTime::UNIX_EPOCH;
        for absurd in [
            "Sun, 06 Nov 999999999999999999 08:49:37 GMT",
            "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
            "Sat, 01 Jan 10000 00:00:00 GMT",
        ] {
            assert_eq!(retry_after(absurd, now), None, "{absurd:?}");
        }
        // The last year still reads, as a long wait that `wait_before` caps.
        let far = retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now).expect("a date");
        assert_eq!(far, Duration::from_secs(253_402_300_799));
    }

    #[test]
    fn retry_after_ms_in_milliseconds() {
        assert_eq!(retry_after_ms("250"), Some(Duration::from_millis(250)));
        assert_eq!(retry_after_ms(" 1.5 "), Some(Duration::from_micros(1500)));
        assert_eq!(retry_after_ms("0"), Some(Duration::ZERO));
        for bad in ["", "-5", "soon", "NaN", "inf", "1e400"] {
            assert_eq!(retry_after_ms(bad), None, "{bad:?}");
        }
    }
}
