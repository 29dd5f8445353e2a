//! When a request is sent again: only idempotent methods (`GET`, `HEAD`,
//! `PUT`, `DELETE`, `OPTIONS`) after `429 Too Many Requests` or `503
//! Service Unavailable`, any method after a connection failure (nothing
//! was sent), at most `max_retries` times. The wait is the answer's
//! `Retry-After` (delay seconds or an HTTP date, RFC 9110 §10.2.3), else
//! an exponential backoff from [`BASE_BACKOFF`], never more than
//! [`MAX_WAIT`].

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, Method, StatusCode};

/// The first backoff without `Retry-After`; doubled each retry.
pub(crate) const BASE_BACKOFF: Duration = Duration::from_millis(250);

/// The longest wait before a retry, whatever `Retry-After` says.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(30);

/// Whether the method may be sent twice.
pub(crate) fn idempotent(method: &Method) -> bool {
    matches!(
        *method,
        Method::GET | Method::HEAD | Method::PUT | Method::DELETE | Method::OPTIONS
    )
}

/// Whether an answer of this status asks to try again later.
pub(crate) fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE
}

/// How long to wait before retry number `retry` (1 for the first).
pub(crate) fn wait(headers: Option<&HeaderMap>, retry: u32) -> Duration {
    let backoff = BASE_BACKOFF.saturating_mul(1 << retry.saturating_sub(1).min(16));
    headers
        .and_then(|h| h.get(http::header::RETRY_AFTER))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| retry_after(v, SystemTime::now()))
        .unwrap_or(backoff)
        .min(MAX_WAIT)
}

/// A `Retry-After` value: delay seconds, or an IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) from which the delay is counted from
/// `now` (zero once past).
pub(crate) fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = UNIX_EPOCH + Duration::from_secs(http_date(value)?);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Seconds since the epoch of an IMF-fixdate.
fn http_date(text: &str) -> Option<u64> {
    let (_weekday, rest) = text.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts[..] else {
        return None;
    };
    let day: u64 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| *m == month)? as u64
        + 1;
    let year: u64 = year.parse().ok()?;
    let hms: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms[..] else { return None };
    if !(1..=31).contains(&day) || year < 1970 || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (years from 1970): whole years, then the months of this one.
fn days(year: u64, month: u64, day: u64) -> u64 {
    let leap = |y: u64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let years: u64 = (1970..year).map(|y| if leap(y) { 366 } else { 365 }).sum();
    let lengths = [
        31,
        if leap(year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let months: u64 = lengths[..(month - 1) as usize].iter().sum();
    years + months + day - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(951_825_600)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("Sun, 06 Nov 1994 08:49:47 PST", now), None);
    }

    #[test]
    fn waits_back_off_and_are_capped() {
        assert_eq!(wait(None, 1), BASE_BACKOFF);
        assert_eq!(wait(None, 3), BASE_BACKOFF * 4);
        let mut h = HeaderMap::new();
        h.insert(http::header::RETRY_AFTER, "3600".parse().unwrap());
        assert_eq!(wait(Some(&h), 1), MAX_WAIT);
        assert!(
            idempotent(&Method::PUT) && !idempotent(&Method::POST) && !idempotent(&Method::PATCH)
        );
    }
}
