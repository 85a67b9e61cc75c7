//! Dates as they cross JSON. Inside the engine a date is an `i64` of unix
//! milliseconds; in JSON it is what JavaScript's `Date.prototype.toJSON`
//! prints (`2026-11-22T10:00:00.000Z`), because that is what a host adapter
//! written for Auth.js returns once its `Date`s are serialized. On input a
//! number of milliseconds is accepted too, since some hosts (and Python's
//! `json` with a default hook) send timestamps rather than strings.

use serde::de::{self, Deserializer, Unexpected};
use serde::{Deserialize, Serializer};
use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::OffsetDateTime;

/// `Date.toISOString()` of `unix_ms`. Years outside 0..=9999 cannot be
/// printed that way (JavaScript uses `+275760-…`); they never occur for
/// session or token expiry, so they are clamped to the valid range instead
/// of failing a write.
pub fn to_iso(unix_ms: i64) -> String {
    const MIN: i64 = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
    const MAX: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    let ms = unix_ms.clamp(MIN, MAX);
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(format).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_owned())
}

/// Unix milliseconds of an RFC 3339 / ISO-8601 date-time string.
pub fn parse_iso(s: &str) -> Option<i64> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

/// Unix milliseconds of a JSON date: an ISO string or a number of ms.
pub fn from_json(value: &Value) -> Option<i64> {
    match value {
        Value::String(s) => parse_iso(s),
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.is_finite()).map(|f| f as i64)),
        _ => None,
    }
}

fn deserialize_ms<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    let value = Value::deserialize(d)?;
    from_json(&value).ok_or_else(|| match &value {
        Value::String(s) => de::Error::invalid_value(Unexpected::Str(s), &"an ISO-8601 date"),
        _ => de::Error::invalid_type(Unexpected::Other("non-date"), &"an ISO-8601 date string or milliseconds"),
    })
}

/// `#[serde(with = "date::ms")]` for a required date.
pub mod ms {
    use super::*;

    pub fn serialize<S: Serializer>(unix_ms: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_iso(*unix_ms))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        deserialize_ms(d)
    }
}

/// `#[serde(default, with = "date::option_ms")]` for a nullable date.
pub mod option_ms {
    use super::*;

    pub fn serialize<S: Serializer>(unix_ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
        match unix_ms {
            Some(ms) => s.serialize_str(&to_iso(*ms)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        let value = Value::deserialize(d)?;
        if value.is_null() {
            return Ok(None);
        }
        deserialize_ms(value).map(Some).map_err(de::Error::custom)
    }
}

/// `#[serde(default, skip_serializing_if = "Option::is_none", with = "date::patch_ms")]`
/// for a date in a partial update: absent = keep, `null` = clear, a date = set.
pub mod patch_ms {
    use super::*;

    pub fn serialize<S: Serializer>(change: &Option<Option<i64>>, s: S) -> Result<S::Ok, S::Error> {
        match change {
            Some(value) => option_ms::serialize(value, s),
            // Only reached without `skip_serializing_if`; `null` is the
            // closest JSON to "unchanged" then.
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<i64>>, D::Error> {
        option_ms::deserialize(d).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trip() {
        assert_eq!(to_iso(1_445_412_480_123), "2015-10-21T07:28:00.123Z");
        assert_eq!(parse_iso("2015-10-21T07:28:00.123Z"), Some(1_445_412_480_123));
        assert_eq!(parse_iso("2015-10-21T09:28:00.123+02:00"), Some(1_445_412_480_123));
        assert_eq!(to_iso(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(parse_iso("1969-12-31T23:59:59.999Z"), Some(-1));
        assert_eq!(parse_iso("yesterday"), None);
    }

    #[test]
    fn numbers_are_milliseconds() {
        assert_eq!(from_json(&serde_json::json!(1_445_412_480_123_i64)), Some(1_445_412_480_123));
        assert_eq!(from_json(&serde_json::json!(true)), None);
    }
}
