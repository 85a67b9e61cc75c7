//! The user's own database sessions: list them (when each was made and
//! last active, a readable device, the network it came from, which one is
//! this browser's), end one, end all others, end all. From host code
//! ([`Auth::list_sessions`] and the methods beside it, one entry point for
//! the bindings in [`Auth::sessions`]) and from the `sessions` route.
//!
//! A session is named by an id that is a hash of its stored token (itself a
//! hash of the cookie's token): the id can be shown and posted back, and
//! says nothing that signs anyone in. Only a user's own sessions are listed
//! or ended: an id that is not one of theirs is "no such session", as an
//! unknown one.
//!
//! JWT sessions are not stored, so there is nothing to list or end one by
//! one; those calls are refused with `UnsupportedStrategy`. Ending all of
//! a user's JWT sessions records a sign-out time ([`crate::sign_outs`]).

use std::net::IpAddr;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::http::AuthRequest;
use crate::session::stored_session_token;
use crate::store::{AdapterSession, DataStores, ListedSession, SessionDetails};
use crate::time::{iso_millis, now_millis};
use crate::Auth;

/// Which sessions an end call ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndScope {
    /// The one with the given id.
    One,
    /// All but the current browser's.
    Others,
    /// All of them, the current browser's too.
    All,
}

impl EndScope {
    fn as_str(self) -> &'static str {
        match self {
            EndScope::One => "one",
            EndScope::Others => "others",
            EndScope::All => "all",
        }
    }
}

impl Auth {
    /// What a new database session records about the request that made it:
    /// now, the `User-Agent` (cut to 512 bytes) and the client's network.
    pub(crate) fn session_details(&self, req: &AuthRequest) -> SessionDetails {
        let user_agent = req.header("user-agent").map(str::trim).filter(|ua| !ua.is_empty()).map(|ua| {
            let mut end = ua.len().min(SessionDetails::MAX_USER_AGENT);
            while !ua.is_char_boundary(end) {
                end -= 1;
            }
            ua[..end].chars().filter(|c| !c.is_control()).collect()
        });
        SessionDetails {
            created_at: Some(now_millis() as i64),
            user_agent,
            ip: self.limiter.client_ip(req).map(network_of),
        }
    }

    /// `user_id`'s unexpired database sessions, the current one first, then
    /// the most recently active: `id`, `createdAt`, `lastActiveAt`,
    /// `expires`, `userAgent`, `device`, `ip` (the network, e.g.
    /// `203.0.113.0/24`), `current`. `current` marks the session whose
    /// cookie `request` carries.
    pub fn list_sessions(&self, user_id: &str, request: Option<&AuthRequest>) -> Result<Vec<Value>, AuthError> {
        let db = self.session_stores()?;
        let current = request.and_then(|req| self.current_stored_token(req));
        let now = now_millis() as i64;
        let max_age_ms = self.settings.session_max_age as i64 * 1000;
        let mut listed: Vec<(bool, i64, Value)> = db
            .sessions
            .list_user_sessions(user_id)?
            .into_iter()
            .filter(|s| s.expires > now)
            .map(|s| {
                let is_current = current
                    .as_deref()
                    .is_some_and(|c| constant_time_eq::constant_time_eq(c.as_bytes(), s.session_token.as_bytes()));
                // Expiry moves to `maxAge` from the last read that extended
                // it, so that read was `maxAge` before the expiry (to within
                // `updateAge`).
                // Never before it was made, never after now; not `clamp`,
                // which panics when another server's clock put `createdAt`
                // after this one's now.
                let last_active = (s.expires - max_age_ms).min(now);
                let last_active = s.details.created_at.map_or(last_active, |created| last_active.max(created));
                (is_current, last_active, session_json(&s, is_current, last_active))
            })
            .collect();
        listed.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        Ok(listed.into_iter().map(|(_, _, v)| v).collect())
    }

    /// End one of `user_id`'s sessions by its id (as listed). An id that is
    /// not one of theirs is `SessionTokenError` ("no such session").
    pub fn end_session(&self, user_id: &str, id: &str) -> Result<(), AuthError> {
        let db = self.session_stores()?;
        let found = db
            .sessions
            .list_user_sessions(user_id)?
            .into_iter()
            .find(|s| constant_time_eq::constant_time_eq(session_id(&s.session_token).as_bytes(), id.as_bytes()))
            .ok_or_else(no_such_session)?;
        // Gone meanwhile (ended by another request): the same answer.
        db.sessions.delete_session(&found.session_token)?.ok_or_else(no_such_session)?;
        self.sessions_ended(user_id, 1, EndScope::One, None);
        Ok(())
    }

    /// End every session of `user_id` but the one whose cookie `request`
    /// carries (all of them when it carries none of theirs); how many
    /// ended.
    pub fn end_other_sessions(&self, user_id: &str, request: Option<&AuthRequest>) -> Result<u64, AuthError> {
        if self.settings.strategy == SessionStrategy::Jwt {
            return Err(AuthError::new(
                ErrorType::UnsupportedStrategy,
                "a JWT session is kept while the others end only where its cookie can be re-issued: \
                 POST sessions with action=endOthers; from the server, end all sessions",
            ));
        }
        let db = self.session_stores()?;
        let current = request.and_then(|req| self.current_stored_token(req));
        self.end_sessions_but(db, user_id, current.as_deref(), EndScope::Others)
    }

    /// End every session of `user_id`; how many stored sessions ended.
    /// JWT sessions are stored nowhere to count (0): every one `user_id`
    /// signed in to until now ends, here at once and in every process
    /// sharing the store within `session.revocationCheck.interval` (see
    /// [`crate::sign_outs`]).
    pub fn end_all_sessions(&self, user_id: &str) -> Result<u64, AuthError> {
        if self.settings.strategy == SessionStrategy::Jwt {
            let before = self.sign_out_jwt_sessions(user_id)?;
            self.sessions_ended(user_id, 0, EndScope::All, Some(before));
            return Ok(0);
        }
        let db = self.session_stores()?;
        let ended = db.sessions.delete_user_sessions(user_id)?;
        // The browsers the user trusted to skip the second step end too.
        self.record_sign_out(user_id)?;
        self.sessions_ended(user_id, ended, EndScope::All, None);
        Ok(ended)
    }

    /// Record that `user_id`'s JWT sessions signed in to until now are
    /// over; when. Refused where no sign-out can be kept.
    pub(crate) fn sign_out_jwt_sessions(&self, user_id: &str) -> Result<i64, AuthError> {
        if self.stores.data().is_none() {
            return Err(AuthError::new(
                ErrorType::MissingAdapter,
                "ending JWT sessions needs an adapter to keep when each user's sessions were ended",
            ));
        }
        self.record_sign_out(user_id)?.ok_or_else(|| {
            AuthError::new(
                ErrorType::UnsupportedStrategy,
                "JWT sessions end before they expire only with session.revocationCheck on (it is off, or this adapter cannot keep sign-outs)",
            )
        })
    }

    /// The session calls as one entry point for the bindings: `call` is
    /// `{ "action": "list" | "end" | "endOthers" | "endAll", "id"?,
    /// "url"?, "cookie"? }`, where `url` and `cookie` (the request's URL
    /// and `Cookie` header) say which session is the caller's. The answer
    /// is the list, `null` for `end`, or `{ "ended": n }`.
    pub fn sessions(&self, user_id: &str, call: &Value) -> Result<Value, AuthError> {
        let text = |key: &str| call.get(key).and_then(Value::as_str);
        let request = text("cookie")
            .map(|cookie| AuthRequest::get(text("url").unwrap_or("http://localhost/")).with_header("cookie", cookie));
        match text("action") {
            Some("list") => Ok(Value::Array(self.list_sessions(user_id, request.as_ref())?)),
            Some("end") => {
                let id = text("id")
                    .ok_or_else(|| AuthError::new(ErrorType::SessionTokenError, "a session id is required"))?;
                self.end_session(user_id, id).map(|()| Value::Null)
            }
            Some("endOthers") => Ok(json!({ "ended": self.end_other_sessions(user_id, request.as_ref())? })),
            Some("endAll") => Ok(json!({ "ended": self.end_all_sessions(user_id)? })),
            _ => Err(AuthError::new(ErrorType::UnknownAction, "a session call is list, end, endOthers or endAll")),
        }
    }

    /// Delete `user_id`'s sessions except the one stored as `keep`. All of
    /// them go in one store call, sessions the list cannot show included
    /// (Redis sessions from before their token was kept), and the kept one
    /// is stored again as it was, with its details.
    pub(crate) fn end_sessions_but(
        &self,
        db: &DataStores,
        user_id: &str,
        keep: Option<&str>,
        scope: EndScope,
    ) -> Result<u64, AuthError> {
        let kept = match keep {
            Some(token) => {
                match db.sessions.list_user_sessions(user_id)?.into_iter().find(|s| s.session_token == token) {
                    Some(listed) => Some(listed),
                    // Not listed (a Redis session from before its token was
                    // kept): kept all the same, without details.
                    None => {
                        db.session_and_user(token)?.filter(|(s, _)| s.user_id == user_id).map(|(s, _)| ListedSession {
                            session_token: s.session_token,
                            expires: s.expires,
                            details: SessionDetails::default(),
                        })
                    }
                }
            }
            None => None,
        };
        let deleted = db.sessions.delete_user_sessions(user_id)?;
        if let Some(s) = &kept {
            let session = AdapterSession {
                session_token: s.session_token.clone(),
                user_id: user_id.to_owned(),
                expires: s.expires,
            };
            db.create_session_with_details(&session, &s.details)?;
        }
        let ended = deleted.saturating_sub(u64::from(kept.is_some()));
        // The browsers the user trusted to skip the second step end too
        // (this one's included: it is asked for a code at its next sign-in).
        self.record_sign_out(user_id)?;
        self.sessions_ended(user_id, ended, scope, None);
        Ok(ended)
    }

    /// `events.sessionsEnded`: `ended` stored sessions, and with `before`
    /// (unix ms) every JWT session signed in to before it.
    pub(crate) fn sessions_ended(&self, user_id: &str, ended: u64, scope: EndScope, before: Option<i64>) {
        if ended > 0 || before.is_some() {
            self.callbacks.event(&Hook::EVENT_SESSIONS_ENDED, || {
                let mut message = json!({ "userId": user_id, "ended": ended, "scope": scope.as_str() });
                if let Some(before) = before {
                    message["before"] = Value::String(iso_millis(before.max(0) as u64));
                }
                message
            });
        }
    }

    /// The stored token of the session cookie `req` carries, if any.
    pub(crate) fn current_stored_token(&self, req: &AuthRequest) -> Option<String> {
        let cookies = self.cookies_for_url(&req.url);
        ChunkedCookie::read(&cookies.session_token, req).value().map(stored_session_token)
    }

    fn session_stores(&self) -> Result<&DataStores, AuthError> {
        if self.settings.strategy != SessionStrategy::Database {
            return Err(AuthError::new(
                ErrorType::UnsupportedStrategy,
                "only database sessions are stored and can be listed or ended one by one",
            ));
        }
        self.stores.data().ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "database sessions need an adapter"))
    }
}

fn no_such_session() -> AuthError {
    AuthError::new(ErrorType::SessionTokenError, "no such session")
}

/// A session as its owner sees it.
fn session_json(s: &ListedSession, current: bool, last_active: i64) -> Value {
    let iso = |ms: i64| iso_millis(ms.max(0) as u64);
    json!({
        "id": session_id(&s.session_token),
        "createdAt": s.details.created_at.map(iso),
        "lastActiveAt": iso(last_active),
        "expires": iso(s.expires),
        "userAgent": s.details.user_agent,
        "device": s.details.user_agent.as_deref().and_then(device_of),
        "ip": s.details.ip,
        "current": current,
    })
}

/// The id a session is shown and ended by: the hex SHA-256 of its stored
/// token.
pub(crate) fn session_id(stored_token: &str) -> String {
    Sha256::digest(stored_token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// "Firefox on Linux": the browser and system a User-Agent names, or
/// `None` when it names neither.
pub(crate) fn device_of(user_agent: &str) -> Option<String> {
    let parsed = woothee::parser::Parser::new().parse(user_agent)?;
    let known = |s: &str| (!s.is_empty() && s != woothee::woothee::VALUE_UNKNOWN).then(|| s.to_owned());
    match (known(parsed.name), known(parsed.os)) {
        (Some(name), Some(os)) => Some(format!("{name} on {os}")),
        (Some(name), None) => Some(name),
        (None, Some(os)) => Some(os),
        (None, None) => None,
    }
}

/// The network an address is in, as stored and shown: /24 for IPv4, /48
/// for IPv6 (an IPv4-mapped IPv6 address as IPv4). Never the address.
pub(crate) fn network_of(ip: IpAddr) -> String {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    let prefix = if ip.is_ipv4() { 24 } else { 48 };
    ipnet::IpNet::new(ip, prefix).map(|net| net.trunc().to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn networks_hide_the_host() {
        assert_eq!(network_of("203.0.113.77".parse().unwrap()), "203.0.113.0/24");
        assert_eq!(network_of("2001:db8:1:2:3:4:5:6".parse().unwrap()), "2001:db8:1::/48");
        assert_eq!(network_of("::ffff:198.51.100.9".parse().unwrap()), "198.51.100.0/24");
    }

    #[test]
    fn devices_are_readable() {
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
        assert_eq!(device_of(firefox).as_deref(), Some("Firefox on Linux"));
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
        assert_eq!(device_of(iphone).as_deref(), Some("Safari on iPhone"));
        assert_eq!(device_of(""), None);
        assert_eq!(device_of("\u{0}\u{ffff}"), None);
    }

    proptest! {
        /// Any User-Agent gives an answer without panicking, and any address
        /// a network that contains it.
        #[test]
        fn any_input_is_answered(ua in "\\PC{0,600}", v4 in any::<u32>(), v6 in any::<u128>()) {
            let _ = device_of(&ua);
            for ip in [IpAddr::from(std::net::Ipv4Addr::from(v4)), IpAddr::from(std::net::Ipv6Addr::from(v6))] {
                let net: ipnet::IpNet = network_of(ip).parse().unwrap();
                let shown = match ip { IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4), v4 => v4 };
                prop_assert!(net.contains(&shown));
                prop_assert!(net.prefix_len() == 24 || net.prefix_len() == 48);
            }
        }
    }
}
