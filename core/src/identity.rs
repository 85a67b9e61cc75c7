//! Who a session belongs to, and whether its email address was ever proven.
//!
//! An email address is a claim until someone proves it: an email link proves
//! it; an OAuth/OIDC profile proves it only through the provider's own
//! claim (see each provider's `verified_email`); a credentials sign-in
//! proves it only when `authorize` says so (`emailVerified`); a passkey
//! sign-up proves nothing. Linking, matching and merging by email use
//! proven addresses only, in the engine and in every framework integration
//! that maps a session onto the host's own users (Django's `User`).
//!
//! The engine records the proof with the session: database sessions read
//! it from the user row (`emailVerified`), JWT sessions carry it in one
//! claim the engine owns ([`CLAIM`]), which the jwt callback can neither
//! drop nor forge: it is copied from the token the engine issued onto
//! whatever the callback returns.

use serde::Serialize;
use serde_json::{Map, Value};

/// The JWT claim holding the identity: `{ "sub", "email"?, "emailVerified" }`.
/// Auth.js ignores it, so cookies stay readable by either library.
pub const CLAIM: &str = "libauth";

/// The session's owner as the engine established it at sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    /// Unique per libauth user and stable across sign-ins: the stored
    /// user's id with an adapter; without one, `<provider id>:<the
    /// provider's account id>`, so equal ids at two providers never meet.
    pub subject: String,
    /// The address signed in with (lowercased as stored), if any.
    pub email: Option<String>,
    /// Whether `email` was proven (see the module docs). `false` without an
    /// email.
    pub email_verified: bool,
}

impl Identity {
    /// The claim's value.
    pub(crate) fn to_claim(&self) -> Value {
        let mut claim = Map::new();
        claim.insert("sub".into(), Value::String(self.subject.clone()));
        if let Some(email) = &self.email {
            claim.insert("email".into(), Value::String(email.clone()));
        }
        claim.insert("emailVerified".into(), Value::Bool(self.email_verified && self.email.is_some()));
        Value::Object(claim)
    }

    /// The identity a token's claim holds; `None` for a token without a
    /// well-formed claim (issued by Auth.js, or before this claim existed).
    pub fn from_claims(token: &Map<String, Value>) -> Option<Identity> {
        Identity::from_claim(token.get(CLAIM)?)
    }

    pub(crate) fn from_claim(claim: &Value) -> Option<Identity> {
        let claim = claim.as_object()?;
        let subject = claim.get("sub")?.as_str().filter(|s| !s.is_empty())?.to_owned();
        let email = claim.get("email").and_then(Value::as_str).map(str::to_owned);
        let email_verified = email.is_some() && claim.get("emailVerified") == Some(&Value::Bool(true));
        Some(Identity { subject, email, email_verified })
    }
}

/// The claim's key for when the session was signed in to (unix ms). Set at
/// sign-in and kept by every re-issue (unlike `iat`, which a re-issue
/// moves), so a sign-out everywhere ([`crate::sign_outs`]) can tell a
/// session signed in to before it from one signed in to since.
pub(crate) const SIGNED_IN_AT: &str = "authTime";

/// The claim's key for how the user signed in: RFC 8176 values, e.g.
/// `["pwd", "otp"]` (see the sign-in route's `FirstFactor`).
pub(crate) const AMR: &str = "amr";

/// The `amr` values the engine records (RFC 8176): a password, a one-time
/// code, a federated sign-in (OAuth/OIDC), an email link, a passkey, a
/// passkey that verified its user.
const AMR_VALUES: [&str; 6] = ["pwd", "otp", "fed", "email", "hwk", "mfa"];

/// A list of `amr` values as the session shows it, if every value is one
/// the engine records (and there are at most four).
fn amr_list<S: AsRef<str>>(values: impl Iterator<Item = Option<S>>) -> Option<Value> {
    let known = |v: S| AMR_VALUES.iter().find(|known| **known == v.as_ref()).copied();
    let list: Option<Vec<&str>> = values.map(|v| v.and_then(known)).collect();
    list.filter(|l| (1..=4).contains(&l.len())).map(Value::from)
}

/// How a JWT session's user signed in, from the engine's claim.
pub(crate) fn amr_of_claim(claim: Option<&Value>) -> Option<Value> {
    let list = claim?.get(AMR)?.as_array()?;
    amr_list(list.iter().map(Value::as_str))
}

/// A database session's cookie value: the session token, `~`, and how the
/// user signed in (`pwd+otp`). The store keys the session by a hash of the
/// whole value, so that part cannot be changed without losing the session,
/// and nothing is stored or read for it.
pub(crate) fn session_cookie_with_amr(token: &str, amr: &[&str]) -> String {
    format!("{token}~{}", amr.join("+"))
}

/// How a database session's user signed in, from its cookie value (see
/// [`session_cookie_with_amr`]); `None` for a session made without it
/// (imported, or before the engine recorded it).
pub(crate) fn amr_of_session_cookie(value: &str) -> Option<Value> {
    let (_, methods) = value.rsplit_once('~')?;
    amr_list(methods.split('+').map(Some))
}

/// The claim a session signed in to at `signed_in_at` (unix ms), by the
/// methods `amr`, carries.
pub(crate) fn session_claim(identity: &Identity, signed_in_at: i64, amr: &[&str]) -> Value {
    let mut claim = identity.to_claim();
    if let Value::Object(map) = &mut claim {
        map.insert(SIGNED_IN_AT.into(), Value::from(signed_in_at));
        map.insert(AMR.into(), Value::from(amr.to_vec()));
    }
    claim
}

/// Whose session a token is and when it was signed in to (unix ms), for
/// the sign-out check: the engine's claim (`sub`, `authTime`), else, for a
/// token issued without it (by Auth.js), the token's `sub` and `iat` (to
/// the second: the start of it, so a sign-out within that second ends it
/// too). `None` for a token naming no user. A token with a user but no
/// time counts as signed in to before any sign-out.
pub(crate) fn signed_in(claim: Option<&Value>, sub: Option<&Value>, iat: Option<&Value>) -> Option<(String, i64)> {
    let iat_ms =
        || iat.and_then(Value::as_f64).filter(|t| t.is_finite()).map_or(i64::MIN, |t| (t.floor() * 1000.0) as i64);
    if let Some(claim) = claim.and_then(Value::as_object) {
        let subject = claim.get("sub").and_then(Value::as_str).filter(|s| !s.is_empty())?;
        let at = claim.get(SIGNED_IN_AT).and_then(Value::as_i64).unwrap_or_else(iat_ms);
        return Some((subject.to_owned(), at));
    }
    let subject = sub.and_then(Value::as_str).filter(|s| !s.is_empty())?;
    Some((subject.to_owned(), iat_ms()))
}

/// Keep the engine's claim on a token a jwt callback returned: the value
/// the engine issued wins over whatever the callback did with it.
pub(crate) fn keep_claim(issued: &Map<String, Value>, returned: &mut Map<String, Value>) {
    match issued.get(CLAIM) {
        Some(claim) => {
            if returned.get(CLAIM) != Some(claim) {
                returned.insert(CLAIM.into(), claim.clone());
            }
        }
        None => {
            returned.remove(CLAIM);
        }
    }
}

/// Whether a provider's own "verified" flag says yes: JSON `true`, or the
/// string `"true"` (Apple sends `email_verified` as a string).
pub fn flag_is_true(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// Whether the host's `authorize` (or `getUserInfo`) answer says its email
/// was proven: `emailVerified` is `true`, a date (an ISO string, as a
/// JavaScript `Date` or Python `datetime` crosses), or a positive number
/// of milliseconds.
pub fn host_says_verified(user: &Map<String, Value>) -> bool {
    match user.get("emailVerified") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => crate::store::date::from_json(&Value::String(s.clone())).is_some(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n.is_finite() && n > 0.0),
        _ => false,
    }
}

/// Whether two addresses are the same for proof: trimmed, ASCII case folded.
pub fn same_address(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn flags() {
        assert!(flag_is_true(Some(&json!(true))));
        assert!(flag_is_true(Some(&json!("true"))));
        for no in [json!(false), json!("false"), json!(1), json!("yes"), json!(null), json!({})] {
            assert!(!flag_is_true(Some(&no)), "{no}");
        }
        assert!(!flag_is_true(None));
    }

    #[test]
    fn host_verified_values() {
        let says = |v: Value| host_says_verified(json!({ "emailVerified": v }).as_object().unwrap());
        assert!(says(json!(true)));
        assert!(says(json!("2024-01-02T03:04:05.000Z")));
        assert!(says(json!(1_700_000_000_000_i64)));
        for no in [json!(false), json!(null), json!("yes"), json!(""), json!(0), json!(-5), json!([])] {
            assert!(!says(no.clone()), "{no}");
        }
        assert!(!host_says_verified(&Map::new()));
    }

    proptest! {
        /// Whatever a jwt callback returns, the issued claim is what the
        /// token keeps, and a token issued without one never gains one.
        #[test]
        fn the_claim_survives_any_callback(
            had in proptest::option::of(("[a-z0-9-]{1,12}", proptest::option::of("[a-z]{1,6}@[a-z]{1,6}\\.com"), any::<bool>())),
            forged in proptest::option::of(any::<bool>()),
            other in "[a-z]{0,8}",
        ) {
            let mut issued = Map::new();
            if let Some((sub, email, ev)) = &had {
                let id = Identity { subject: sub.clone(), email: email.clone(), email_verified: *ev };
                issued.insert(CLAIM.into(), id.to_claim());
            }
            let mut returned = Map::new();
            returned.insert("other".into(), Value::String(other));
            if let Some(ev) = forged {
                returned.insert(CLAIM.into(), json!({ "sub": "attacker", "email": "admin", "emailVerified": ev }));
            }
            keep_claim(&issued, &mut returned);
            prop_assert_eq!(Identity::from_claims(&returned), Identity::from_claims(&issued));
            if let Some((_, email, ev)) = had {
                let id = Identity::from_claims(&returned).unwrap();
                prop_assert_eq!(id.email_verified, ev && email.is_some());
            }
        }

        /// A claim of any shape parses without panicking, and is verified
        /// only when it says exactly `true` and has an email.
        #[test]
        fn any_claim_parses_safely(sub in any::<Option<String>>(), email in any::<Option<String>>(), ev in prop_oneof![Just(json!(true)), Just(json!("true")), Just(json!(1)), Just(json!(null))]) {
            let claim = json!({ "sub": sub, "email": email, "emailVerified": ev });
            if let Some(id) = Identity::from_claim(&claim) {
                prop_assert!(!id.subject.is_empty());
                prop_assert_eq!(id.email_verified, ev == json!(true) && email.is_some());
            }
        }
    }
}
