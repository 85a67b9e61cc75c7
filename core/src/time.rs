//! Clock and date formats. All times are unix seconds (or milliseconds for
//! ISO strings, which JavaScript prints with millisecond precision).

use std::time::{SystemTime, UNIX_EPOCH};

use time::{format_description::FormatItem, macros::format_description, OffsetDateTime};

const HTTP_DATE: &[FormatItem<'static>] =
    format_description!("[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT");
const ISO_MILLIS: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

pub fn now_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

pub fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// `Thu, 01 Jan 1970 00:00:00 GMT`, as cookie `Expires` wants it.
pub fn http_date(unix_seconds: u64) -> String {
    OffsetDateTime::from_unix_timestamp(unix_seconds as i64)
        .ok()
        .and_then(|t| t.format(HTTP_DATE).ok())
        .unwrap_or_else(|| "Thu, 01 Jan 1970 00:00:00 GMT".to_owned())
}

/// `2026-11-22T10:00:00.000Z`, as JavaScript's `Date.toISOString()`.
pub fn iso_millis(unix_millis: u64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(unix_millis as i128 * 1_000_000)
        .ok()
        .and_then(|t| t.format(ISO_MILLIS).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_owned())
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats() {
        assert_eq!(super::http_date(1_445_412_480), "Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(super::iso_millis(1_445_412_480_123), "2015-10-21T07:28:00.123Z");
    }
}
