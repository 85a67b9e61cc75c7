//! Clock and date formats. All times are unix seconds (or milliseconds for
//! ISO strings, which JavaScript prints with millisecond precision).

use std::time::{SystemTime, UNIX_EPOCH};

use time::{format_description::FormatItem, macros::format_description, OffsetDateTime};

const HTTP_DATE: &[FormatItem<'static>] =
    format_description!("[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT");

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
/// Written digit by digit from the calendar date: every session read
/// formats one, and `time`'s general formatter costs more than the rest of
/// building the session (the tests check both agree).
pub fn iso_millis(unix_millis: u64) -> String {
    // Seconds never overflow i64 (u64::MAX / 1000 < i64::MAX); times past
    // the year 9999 are refused by `time` and print as the epoch, as before.
    let Ok(t) = OffsetDateTime::from_unix_timestamp((unix_millis / 1000) as i64) else {
        return "1970-01-01T00:00:00.000Z".to_owned();
    };
    let (year, month, day) = t.to_calendar_date();
    let fields: [(u32, usize, u8); 7] = [
        (year as u32, 4, b'-'),
        (u8::from(month) as u32, 2, b'-'),
        (day as u32, 2, b'T'),
        (t.hour() as u32, 2, b':'),
        (t.minute() as u32, 2, b':'),
        (t.second() as u32, 2, b'.'),
        ((unix_millis % 1000) as u32, 3, b'Z'),
    ];
    let mut out = Vec::with_capacity(24);
    for (value, width, separator) in fields {
        for place in (0..width).rev() {
            out.push(b'0' + (value / 10u32.pow(place as u32) % 10) as u8);
        }
        out.push(separator);
    }
    String::from_utf8(out).expect("ASCII digits and separators")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formats() {
        assert_eq!(http_date(1_445_412_480), "Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(iso_millis(1_445_412_480_123), "2015-10-21T07:28:00.123Z");
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        // The last millisecond of 9999, and past it (refused: the epoch).
        assert_eq!(iso_millis(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(iso_millis(253_402_300_800_000), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(u64::MAX), "1970-01-01T00:00:00.000Z");
    }

    const ISO_MILLIS: &[FormatItem<'static>] =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

    /// `time`'s own formatter, the reference for [`iso_millis`].
    fn iso_millis_by_time(unix_millis: u64) -> String {
        OffsetDateTime::from_unix_timestamp_nanos(unix_millis as i128 * 1_000_000)
            .ok()
            .and_then(|t| t.format(ISO_MILLIS).ok())
            .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_owned())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        #[test]
        fn iso_millis_agrees_with_time(ms in 0u64..=260_000_000_000_000) {
            prop_assert_eq!(iso_millis(ms), iso_millis_by_time(ms));
        }
    }
}
