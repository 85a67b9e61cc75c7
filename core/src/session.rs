//! Reading and renewing sessions. The JWT strategy keeps the whole session
//! in the encrypted cookie (see `jwt.rs`).

use std::borrow::Cow;
use std::cell::Cell;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::config::SessionStrategy;
use crate::cookies::{ChunkedCookie, CookieSet, SetCookie};
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::http::AuthRequest;
use crate::identity::{Identity, CLAIM};
use crate::session_cache::{Entry, PlainClaims, SessionCache, SharedSession};
use crate::sign_outs::Verdict;
use crate::time::{iso_millis, now_millis, now_seconds};
use crate::Auth;

/// What the client sees: `{ user?: { name, email, image }, expires }`, plus
/// whatever the session callback adds. The second field is who the session
/// belongs to as the engine established it ([`Identity`]): for the server
/// only, never serialized.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Session(pub Map<String, Value>, #[serde(skip)] pub Option<Identity>);

impl Session {
    pub(crate) fn from_value(value: Value, identity: Option<Identity>) -> Session {
        match value {
            Value::Object(map) => Session(map, identity),
            _ => Session(Map::new(), identity),
        }
    }

    /// Who the session belongs to and whether its email was proven; `None`
    /// for a JWT issued without the engine's identity claim (by Auth.js, or
    /// by a libauth before it had one).
    pub fn identity(&self) -> Option<&Identity> {
        self.1.as_ref()
    }

    pub fn user(&self) -> Option<&Map<String, Value>> {
        self.0.get("user").and_then(Value::as_object)
    }

    pub fn expires(&self) -> Option<&str> {
        self.0.get("expires").and_then(Value::as_str)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "null".into())
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }
}

/// A session as host code reads it ([`Auth::get_session_view_by_cookie`]):
/// shared with the session cache when a read without hooks hit it (built
/// once for every read of that cookie: nothing is built, copied or
/// serialized for this read), or built for this read. Bindings take what
/// they hand to their host from here: the JSON text ([`SessionView::json`])
/// or the map ([`SessionView::map`]).
pub struct SessionView(View);

enum View {
    Shared(Arc<SharedSession>),
    Built(Session),
}

impl SessionView {
    /// `{ user?, expires, ... }`, as [`Session`] holds it.
    pub fn map(&self) -> &Map<String, Value> {
        match &self.0 {
            View::Shared(shared) => &shared.map,
            View::Built(session) => &session.0,
        }
    }

    /// The session as JSON text ([`Session::to_json`]).
    pub fn json(&self) -> Cow<'_, str> {
        match &self.0 {
            View::Shared(shared) => Cow::Borrowed(&shared.json),
            View::Built(session) => Cow::Owned(session.to_json()),
        }
    }

    /// Who the session belongs to ([`Session::identity`]).
    pub fn identity(&self) -> Option<&Identity> {
        match &self.0 {
            View::Shared(shared) => shared.identity.as_ref(),
            View::Built(session) => session.identity(),
        }
    }

    /// For a session shared by every read of one cached cookie (see
    /// [`SharedKey`]): the key naming it; `None` for a session built for
    /// this read alone.
    pub fn shared_key(&self) -> Option<SharedKey> {
        match &self.0 {
            View::Shared(shared) => Some(SharedKey(Arc::clone(shared))),
            View::Built(_) => None,
        }
    }

    pub fn into_session(self) -> Session {
        match self.0 {
            View::Shared(shared) => Session(shared.map.clone(), shared.identity.clone()),
            View::Built(session) => session,
        }
    }
}

/// Names one session shared by every read of one cached cookie: two reads
/// with equal keys answered the same session (map, JSON text, identity). A
/// binding may keep its own converted copy of the session under it (a
/// Python dict) instead of converting the map again on every read. Holding
/// a key keeps that session in memory; it says nothing about whether the
/// cookie is still valid: only a read that answered it says that.
#[derive(Clone)]
pub struct SharedKey(Arc<SharedSession>);

impl SharedKey {
    /// The session's JSON text, as every read it answered gave it
    /// ([`SessionView::json`]): for a binding that builds its own copy the
    /// first time it meets the key.
    pub fn json(&self) -> &str {
        &self.0.json
    }
}

impl PartialEq for SharedKey {
    fn eq(&self, other: &SharedKey) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedKey {}

impl std::hash::Hash for SharedKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.0), state);
    }
}

impl std::fmt::Debug for SharedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedKey").field(&Arc::as_ptr(&self.0)).finish()
    }
}

pub(crate) enum ReadMode {
    /// `get_session`: read only; cookies would be discarded, so never re-encrypt.
    Peek,
    /// `GET session`: renew the cookie when `updateAge` says so.
    Refresh,
    /// `POST session`: the client's `update(data)`; always re-issued.
    Update(Value),
}

pub(crate) struct SessionRead {
    pub session: Option<Value>,
    /// A [`ReadMode::Peek`] of a cached token without hooks: the session
    /// (and its identity) the cache entry holds; `session` is then `None`.
    pub shared: Option<Arc<SharedSession>>,
    /// Who the session belongs to (see [`Identity`]).
    pub identity: Option<Identity>,
    pub cookies: Vec<SetCookie>,
    /// The database could not be read: no session now, but the cookie is
    /// kept, since the session may well exist.
    pub adapter_error: Option<AuthError>,
}

impl SessionRead {
    fn none(cookies: Vec<SetCookie>) -> SessionRead {
        SessionRead { session: None, shared: None, identity: None, cookies, adapter_error: None }
    }

    /// The store could not be read: no session now, but the cookie is kept.
    fn unknown(e: AuthError) -> SessionRead {
        SessionRead { adapter_error: Some(e), ..SessionRead::none(Vec::new()) }
    }
}

impl Auth {
    pub(crate) fn read_session(&self, req: &AuthRequest, cookies: &CookieSet, mode: ReadMode) -> SessionRead {
        self.read_session_from(ChunkedCookie::read(&cookies.session_token, req), mode)
    }

    /// The session of a request that is not an auth route, read only
    /// ([`ReadMode::Peek`]): `names` are the cookie names of the request's
    /// scheme (secure or not, as for any request), `pairs` its cookies.
    /// [`Auth::get_session`] (a whole request),
    /// [`Auth::get_session_by_cookie`] (a URL and one `Cookie` header, no
    /// request built) and [`Auth::get_session_view_by_scheme`] all come
    /// here, so they always answer alike.
    pub(crate) fn peek_session<'r>(
        &self,
        names: &CookieSet,
        pairs: impl Iterator<Item = (&'r str, &'r str)>,
    ) -> Result<Option<SessionView>, AuthError> {
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let jar = ChunkedCookie::from_pairs(&names.session_token, pairs);
            self.read_session_from(jar, ReadMode::Peek)
        }))
        .map_err(|_| AuthError::internal())?;
        match (read.adapter_error, read.shared) {
            (Some(e), _) => Err(e),
            (None, Some(shared)) => Ok(Some(SessionView(View::Shared(shared)))),
            (None, None) => Ok(read.session.map(|s| SessionView(View::Built(Session::from_value(s, read.identity))))),
        }
    }

    /// Read the session held by `jar` (the session cookie, read from the
    /// request's cookies).
    fn read_session_from(&self, jar: ChunkedCookie<'_, '_>, mode: ReadMode) -> SessionRead {
        if self.settings.strategy == SessionStrategy::Database {
            return self.read_database_session(jar, mode);
        }
        let spec = jar.spec();
        let Some(raw) = jar.value() else {
            return SessionRead::none(Vec::new());
        };
        let now = now_seconds();
        // Our own tokens are decrypted once, here (or once per engine, with
        // the session cache); their claims are parsed below, as far as the
        // read needs them, and checked on every read.
        let mut slot = None;
        let payload = if self.custom_jwt_decode {
            None
        } else {
            slot = self.cache_slot(&spec.name, raw);
            match slot.as_ref().and_then(CacheSlot::get) {
                Some(hit) => Some(Opened::Cached(hit)),
                None => match self.codec.open(raw, &spec.name) {
                    Ok(payload) => Some(Opened::Fresh(payload)),
                    Err(e) => {
                        // Tampered, expired or foreign: no session, and the cookie goes.
                        self.callbacks.log(&jwt_session_error(e));
                        return SessionRead::none(jar.clear());
                    }
                },
            }
        };
        let plain = match &payload {
            Some(payload) => self.read_plain_session(payload, &mode, now, &jar, slot.as_ref()),
            None => None,
        };
        if let Some(read) = plain {
            if let (Some(slot), Some(payload)) = (&slot, payload) {
                slot.finish(payload);
            }
            return read;
        }
        let claims = match payload {
            Some(payload) => {
                let claims = crate::jwt::parse_claims(&payload, now);
                if let Some(slot) = &slot {
                    slot.settle(claims.is_ok());
                    slot.finish(payload);
                }
                claims.map(Some).map_err(jwt_session_error)
            }
            None => self.decode_session_token(raw, &spec.name),
        };
        let claims = match claims {
            Ok(Some(claims)) => claims,
            Ok(None) => return SessionRead::none(jar.clear()),
            Err(e) => {
                self.callbacks.log(&e);
                return SessionRead::none(jar.clear());
            }
        };
        let signed_in = crate::identity::signed_in(claims.get(CLAIM), claims.get("sub"), claims.get("iat"));
        match self.sign_out_verdict(signed_in.as_ref(), false) {
            Verdict::Stands => {}
            Verdict::Ended => return SessionRead::none(jar.clear()),
            Verdict::Unknown(e) => return SessionRead::unknown(e),
        }
        let issued_at = claims.get("iat").and_then(Value::as_f64).map(|iat| iat as u64);
        let is_update = matches!(mode, ReadMode::Update(_));
        // Only a jwt callback can change the token; without one, the claims
        // are the token and nothing is copied.
        let (mut token, changed) = if is_update || self.callbacks.has_jwt {
            let mut args = Map::new();
            if let ReadMode::Update(data) = &mode {
                args.insert("trigger".into(), "update".into());
                args.insert("session".into(), data.clone());
            }
            match self.callbacks.jwt(claims.clone(), args) {
                Ok(Some(mut token)) => {
                    crate::identity::keep_claim(&claims, &mut token);
                    let changed = token != claims;
                    (token, changed)
                }
                Ok(None) => return SessionRead::none(jar.clear()),
                Err(e) => {
                    self.callbacks.log(&e);
                    return SessionRead::none(jar.clear());
                }
            }
        } else {
            (claims, false)
        };

        // Re-encrypting costs more than everything else here: do it only
        // when the token changed or `updateAge` has passed since it was issued.
        let renew = match mode {
            ReadMode::Peek => false,
            ReadMode::Update(_) => true,
            ReadMode::Refresh => changed || self.renewal_due(issued_at, now),
        };
        // The jwt callback may have rewritten `exp`: bound it again, so no
        // time arithmetic below can overflow.
        let fresh_expiry = now.saturating_add(self.settings.session_max_age);
        let expires = if renew { fresh_expiry } else { token_expiry(token.get("exp")).unwrap_or(fresh_expiry) };

        let amr = crate::identity::amr_of_claim(token.get(CLAIM));
        let session = session_value(user_from_token(&token), expires, amr);
        let session = if self.callbacks.has_session {
            let mut extra = Map::new();
            extra.insert("token".into(), Value::Object(token.clone()));
            if is_update {
                extra.insert("trigger".into(), "update".into());
            }
            match self.callbacks.session(session, extra) {
                Ok(s) => s,
                Err(e) => {
                    self.callbacks.log(&e);
                    return SessionRead::none(jar.clear());
                }
            }
        } else {
            session
        };

        let mut out = Vec::new();
        if renew {
            // The re-issued token keeps when the session was signed in to:
            // its `iat` moves, the claim's `authTime` does not.
            match (token.get_mut(CLAIM).and_then(Value::as_object_mut), &signed_in) {
                (Some(claim), Some((_, at))) => {
                    claim.entry(crate::identity::SIGNED_IN_AT).or_insert_with(|| Value::from(*at));
                }
                // No claim to keep it in: the new `iat` would hide a sign-out
                // this engine has not read yet, so read it now.
                (None, Some(_)) => match self.sign_out_verdict(signed_in.as_ref(), true) {
                    Verdict::Stands => {}
                    Verdict::Ended => return SessionRead::none(jar.clear()),
                    Verdict::Unknown(e) => return SessionRead::unknown(e),
                },
                _ => {}
            }
            match self.encode_session_token(&token, &spec.name) {
                Ok(encoded) => out = jar.write(&encoded, expires),
                Err(e) => {
                    self.callbacks.log(&e);
                    return SessionRead::none(jar.clear());
                }
            }
        }
        if self.callbacks.has_event_session {
            self.callbacks.event(&Hook::EVENT_SESSION, || json!({ "session": session, "token": token }));
        }
        let identity = Identity::from_claims(&token);
        SessionRead { session: Some(session), shared: None, identity, cookies: out, adapter_error: None }
    }

    /// The read of a session no hook sees (no jwt, session or session-event
    /// callback, the engine's own codec) that re-encrypts nothing (`Peek`,
    /// or `Refresh` before `updateAge`): only the claims the session shows
    /// are parsed, into a typed struct, instead of the whole token into a
    /// map. `None` when the full path must decide: a hook is configured, the
    /// token is due for renewal, or the payload is anything but a plain JSON
    /// object naming each claim once (the full path then reads it, or
    /// refuses it, as it always has).
    fn read_plain_session(
        &self,
        payload: &Opened,
        mode: &ReadMode,
        now: u64,
        jar: &ChunkedCookie,
        slot: Option<&CacheSlot<'_>>,
    ) -> Option<SessionRead> {
        let hooked = self.callbacks.has_jwt || self.callbacks.has_session || self.callbacks.has_event_session;
        if hooked || matches!(mode, ReadMode::Update(_)) {
            return None;
        }
        // A cache hit parses its claims once, for every later hit.
        let claims = match payload {
            Opened::Cached(entry) => Cow::Borrowed(entry.plain.get_or_init(|| PlainClaims::parse(payload)).as_ref()?),
            Opened::Fresh(payload) => Cow::Owned(PlainClaims::parse(payload)?),
        };
        let (exp, iat, nbf) = (claims.exp.as_ref(), claims.iat.as_ref(), claims.nbf.as_ref());
        let checked = crate::jwt::check_time_values(exp, iat, nbf, true, now);
        if let Some(slot) = slot {
            slot.settle(checked.is_ok());
        }
        if let Err(e) = checked {
            self.callbacks.log(&jwt_session_error(e));
            return Some(SessionRead::none(jar.clear()));
        }
        match self.sign_out_verdict(claims.signed_in.as_ref(), false) {
            Verdict::Stands => {}
            Verdict::Ended => return Some(SessionRead::none(jar.clear())),
            Verdict::Unknown(e) => return Some(SessionRead::unknown(e)),
        }
        let issued_at = iat.and_then(Value::as_f64).map(|iat| iat as u64);
        if matches!(mode, ReadMode::Refresh) && self.renewal_due(issued_at, now) {
            return None;
        }
        let expiry = token_expiry(exp);
        // A peek at a cached token: the session is the entry's, built by
        // the first such read (it depends on the token alone).
        if let (Opened::Cached(entry), ReadMode::Peek, Some(expires)) = (payload, mode, expiry) {
            let shared = entry.session.get_or_init(|| Some(Arc::new(shared_session(&claims, expires))));
            if let Some(shared) = shared {
                return Some(SessionRead {
                    session: None,
                    shared: Some(Arc::clone(shared)),
                    identity: None,
                    cookies: Vec::new(),
                    adapter_error: None,
                });
            }
        }
        let expires = expiry.unwrap_or_else(|| now.saturating_add(self.settings.session_max_age));
        let (user, identity, amr) = user_and_identity(claims);
        Some(SessionRead {
            session: Some(session_value(user, expires, amr)),
            shared: None,
            identity,
            cookies: Vec::new(),
            adapter_error: None,
        })
    }

    /// The session cache's place for cookie `value` under cookie `name`:
    /// `None` without a cache, or for a cookie name that is neither of the
    /// engine's two session cookie names (each is its own key derivation
    /// salt, so each has its own keys in the cache).
    fn cache_slot<'a>(&'a self, name: &str, value: &'a str) -> Option<CacheSlot<'a>> {
        let cache = self.session_cache.as_ref()?;
        let secure = if name == self.plain_cookies.session_token.name {
            false
        } else if name == self.secure_cookies.session_token.name {
            true
        } else {
            return None;
        };
        Some(CacheSlot { cache, secure, value, hit: Cell::new(false), passed: Cell::new(None) })
    }

    /// Who a JWT session cookie value `raw` (under cookie name `salt`)
    /// signs in: the subject of the engine's claim, else the token's `sub`;
    /// only for a token that passes what a session read checks (decryption,
    /// its times, the sign-out check). The routes that act for the
    /// signed-in user take their user from here, so a session ended
    /// everywhere can do nothing, not even re-issue itself.
    pub(crate) fn jwt_session_user(&self, raw: &str, salt: &str) -> Option<String> {
        let token = self.decode_session_token(raw, salt).ok().flatten()?;
        let signed_in = crate::identity::signed_in(token.get(CLAIM), token.get("sub"), token.get("iat"));
        if !matches!(self.sign_out_verdict(signed_in.as_ref(), false), Verdict::Stands) {
            return None;
        }
        match Identity::from_claims(&token) {
            Some(identity) => Some(identity.subject),
            None => token.get("sub").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned),
        }
    }

    /// The JWT session cookie `req` carries, re-issued as signed in to at
    /// `signed_in_at` (unix ms), so that it outlives the sign-out of its
    /// user this request just recorded (a password change, "end the other
    /// sessions"). Nothing when `req` carries no readable session of
    /// `user_id`.
    pub(crate) fn reissue_signed_in_at(
        &self,
        req: &AuthRequest,
        user_id: &str,
        signed_in_at: i64,
    ) -> Result<Vec<SetCookie>, AuthError> {
        let jar = ChunkedCookie::read(&self.cookies_for_url(&req.url).session_token, req);
        let spec = jar.spec();
        let Some(raw) = jar.value() else {
            return Ok(Vec::new());
        };
        let mut token = match self.decode_session_token(raw, &spec.name) {
            Ok(Some(token)) => token,
            Ok(None) | Err(_) => return Ok(Vec::new()),
        };
        let Some(claim) = token.get_mut(CLAIM).and_then(Value::as_object_mut) else {
            return Ok(Vec::new());
        };
        if claim.get("sub").and_then(Value::as_str) != Some(user_id) {
            return Ok(Vec::new());
        }
        claim.insert(crate::identity::SIGNED_IN_AT.into(), Value::from(signed_in_at));
        let encoded = self.encode_session_token(&token, &spec.name)?;
        Ok(jar.write(&encoded, now_seconds().saturating_add(self.settings.session_max_age)))
    }

    /// Whether a token issued at `issued_at` is re-issued by `GET session`:
    /// once `updateAge` has passed (always with `updateAge` 0, or no `iat`).
    fn renewal_due(&self, issued_at: Option<u64>, now: u64) -> bool {
        let update_age = self.settings.session_update_age;
        update_age == 0 || issued_at.is_none_or(|iat| now >= iat.saturating_add(update_age))
    }

    /// The database strategy: the cookie holds a session token; the session
    /// and its user come from the adapter. Expiry is pushed back at most
    /// once per `updateAge`; an expired session is deleted.
    fn read_database_session(&self, jar: ChunkedCookie<'_, '_>, mode: ReadMode) -> SessionRead {
        let Some(db) = self.stores.data() else {
            return SessionRead::none(Vec::new());
        };
        let Some(token) = jar.value() else {
            return SessionRead::none(Vec::new());
        };
        let failed = |e: crate::store::AdapterError| {
            let e = AuthError::from(e);
            self.callbacks.log(&e);
            SessionRead { session: None, shared: None, identity: None, cookies: Vec::new(), adapter_error: Some(e) }
        };
        let token = &stored_session_token(token);
        let (mut stored, user) = match db.session_and_user(token) {
            Ok(Some(found)) => found,
            Ok(None) => return SessionRead::none(jar.clear()),
            Err(e) => return failed(e),
        };
        let now_ms = now_millis() as i64;
        if stored.expires <= now_ms {
            if let Err(e) = db.sessions.delete_session(token) {
                self.callbacks.log(&AuthError::from(e));
            }
            return SessionRead::none(jar.clear());
        }
        let max_age_ms = self.settings.session_max_age as i64 * 1000;
        let update_age_ms = self.settings.session_update_age as i64 * 1000;
        let due = stored.expires - max_age_ms + update_age_ms <= now_ms;
        let mut out = Vec::new();
        if !matches!(mode, ReadMode::Peek) && due {
            let expires = now_ms + max_age_ms;
            match db.sessions.update_session(token, expires) {
                Ok(_) => {
                    stored.expires = expires;
                    out = jar.write(jar.value().unwrap_or_default(), (expires / 1000) as u64);
                }
                // Not fatal: the session is still valid until its old expiry.
                Err(e) => self.callbacks.log(&AuthError::from(e)),
            }
        }
        let mut session = json!({
            "user": { "name": user.name, "email": user.email, "image": user.image },
            "expires": iso_millis(stored.expires.max(0) as u64),
        });
        if let Some(amr) = jar.value().and_then(crate::identity::amr_of_session_cookie) {
            session["amr"] = amr;
        }
        let session = if self.callbacks.has_session {
            let mut extra = Map::new();
            extra.insert("user".into(), serde_json::to_value(&user).unwrap_or(Value::Null));
            if let ReadMode::Update(data) = &mode {
                extra.insert("newSession".into(), data.clone());
                extra.insert("trigger".into(), "update".into());
            }
            match self.callbacks.session(session, extra) {
                Ok(s) => s,
                Err(e) => {
                    self.callbacks.log(&e);
                    return SessionRead::none(Vec::new());
                }
            }
        } else {
            session
        };
        if self.callbacks.has_event_session {
            self.callbacks.event(&Hook::EVENT_SESSION, || json!({ "session": session }));
        }
        let identity = Identity {
            subject: user.id.clone(),
            email_verified: user.email.is_some() && user.email_verified.is_some(),
            email: user.email.clone(),
        };
        SessionRead {
            session: Some(session),
            shared: None,
            identity: Some(identity),
            cookies: out,
            adapter_error: None,
        }
    }

    /// A new database session's cookie value: a random token with how the
    /// user signed in after it ([`crate::identity::session_cookie_with_amr`]);
    /// a host's `generateSessionToken` token exactly as it made it (the
    /// host may rely on the cookie being its token: that session has no
    /// `amr`).
    pub(crate) fn new_session_cookie_value(&self, amr: &[&str]) -> Result<String, AuthError> {
        let token = self.generate_session_token()?;
        if self.custom_session_token {
            return Ok(token);
        }
        Ok(crate::identity::session_cookie_with_amr(&token, amr))
    }

    /// A new database session token: the host's `generateSessionToken`, or
    /// a random UUID. A host token must be a string of 16 to 512
    /// characters: anything else fails the sign-in (SessionTokenError)
    /// rather than being replaced behind the host's back.
    pub(crate) fn generate_session_token(&self) -> Result<String, AuthError> {
        if !self.custom_session_token {
            return Ok(uuid::Uuid::new_v4().to_string());
        }
        match self.callbacks.host.call(&Hook::GENERATE_SESSION_TOKEN, Value::Null) {
            Ok(Value::String(s)) if (16..=512).contains(&s.len()) => Ok(s),
            Ok(other) => Err(AuthError::new(
                ErrorType::SessionTokenError,
                format!(
                    "session.generateSessionToken must return a string of 16 to 512 characters, not {}",
                    match other {
                        Value::String(s) => format!("a string of {} characters", s.len()),
                        Value::Null => "null".to_owned(),
                        _ => "a non-string".to_owned(),
                    }
                ),
            )),
            Err(e) => Err(AuthError::from_host(e, ErrorType::SessionTokenError)),
        }
    }

    /// Encrypt a session token (or hand it to the host's `jwt.encode`).
    pub(crate) fn encode_session_token(&self, token: &Map<String, Value>, salt: &str) -> Result<String, AuthError> {
        if self.custom_jwt_encode {
            let args = json!({
                "token": token,
                "secret": self.settings.secrets,
                "salt": salt,
                "maxAge": self.settings.jwt_max_age,
            });
            return match self.callbacks.host.call(&Hook::JWT_ENCODE, args) {
                Ok(Value::String(s)) => check_cookie_size(s),
                Ok(_) => Err(AuthError::new(ErrorType::JWTSessionError, "jwt.encode must return a string")),
                Err(e) => Err(AuthError::from_host(e, ErrorType::JWTSessionError)),
            };
        }
        self.codec.encode(token, salt, self.settings.jwt_max_age).map_err(jwt_session_error).and_then(check_cookie_size)
    }

    /// Decrypt a session token; `Ok(None)` when the host's decoder says null.
    pub(crate) fn decode_session_token(&self, raw: &str, salt: &str) -> Result<Option<Map<String, Value>>, AuthError> {
        if self.custom_jwt_decode {
            let args = json!({ "token": raw, "secret": self.settings.secrets, "salt": salt });
            return match self.callbacks.host.call(&Hook::JWT_DECODE, args) {
                // A host decoder may omit `exp`, but what it returns is
                // checked like our own tokens: no absurd or future times.
                Ok(Value::Object(m)) => match crate::jwt::check_time_claims(&m, false, now_seconds()) {
                    Ok(()) => Ok(Some(m)),
                    Err(e) => Err(jwt_session_error(e)),
                },
                Ok(_) => Ok(None),
                Err(e) => Err(AuthError::from_host(e, ErrorType::JWTSessionError)),
            };
        }
        self.codec.decode(raw, salt).map(Some).map_err(jwt_session_error)
    }
}

/// A session token's payload: decrypted by this read, or by an earlier
/// one (a session cache hit).
enum Opened {
    Fresh(Vec<u8>),
    Cached(Arc<Entry>),
}

impl std::ops::Deref for Opened {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Opened::Fresh(payload) => payload,
            Opened::Cached(entry) => &entry.payload,
        }
    }
}

/// The plain read's view of a token's claims ([`SessionClaims`]).
impl PlainClaims {
    fn parse(payload: &[u8]) -> Option<PlainClaims> {
        let mut claims = SessionClaims::parse(payload)?;
        let take = |claim: &mut Claim| match std::mem::take(claim) {
            Claim::Absent => None,
            Claim::Present(v) => Some(v),
        };
        let (exp, iat, nbf) = (take(&mut claims.exp), take(&mut claims.iat), take(&mut claims.nbf));
        let identity = claims.libauth.get().and_then(Identity::from_claim);
        let amr = crate::identity::amr_of_claim(claims.libauth.get());
        let signed_in = crate::identity::signed_in(claims.libauth.get(), claims.sub.get(), iat.as_ref());
        Some(PlainClaims { exp, iat, nbf, user: claims.user(), identity, amr, signed_in })
    }
}

/// The user and identity of the claims, moved out of this read's own
/// parse or copied from the cache's.
fn user_and_identity(claims: Cow<'_, PlainClaims>) -> (Map<String, Value>, Option<Identity>, Option<Value>) {
    match claims {
        Cow::Owned(claims) => (claims.user, claims.identity, claims.amr),
        Cow::Borrowed(claims) => (claims.user.clone(), claims.identity.clone(), claims.amr.clone()),
    }
}

/// The session every hookless read of a cached token shows: what
/// [`session_value`] builds from its claims, with its JSON text.
fn shared_session(claims: &PlainClaims, expires: u64) -> SharedSession {
    let map = match session_value(claims.user.clone(), expires, claims.amr.clone()) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let json = serde_json::to_string(&map).unwrap_or_else(|_| "null".into()).into_boxed_str();
    SharedSession { map, json, identity: claims.identity.clone() }
}

/// One read's place in the session cache: a cookie value under one of the
/// session cookie names.
pub(crate) struct CacheSlot<'a> {
    cache: &'a SessionCache,
    secure: bool,
    value: &'a str,
    /// The payload came from the cache.
    hit: Cell<bool>,
    /// Whether the claims passed every check, once known (the first
    /// verdict counts: the plain path may leave a token it checked to the
    /// full path, which parses and checks it again, alike).
    passed: Cell<Option<bool>>,
}

impl CacheSlot<'_> {
    /// The cached entry of this value, or `None` (counted as a decryption).
    fn get(&self) -> Option<Arc<Entry>> {
        let hit = self.cache.get(self.secure, self.value);
        match hit {
            Some(_) => self.hit.set(true),
            None => self.cache.count_decryption(),
        }
        hit
    }

    /// Record whether the claims passed every check.
    fn settle(&self, passed: bool) {
        if self.passed.get().is_none() {
            self.passed.set(Some(passed));
        }
    }

    /// Done with the payload: a fresh one whose claims passed is
    /// remembered (moved, not copied); a cached one whose claims failed
    /// (it expired since) is forgotten.
    fn finish(&self, payload: Opened) {
        match (payload, self.passed.get()) {
            (Opened::Fresh(payload), Some(true)) => self.cache.insert(self.secure, self.value, payload),
            (Opened::Cached(_), Some(false)) => self.cache.remove(self.secure, self.value),
            _ => {}
        }
    }
}

/// What the adapter stores for a database session token: its SHA-256, in
/// hex. The browser holds the token itself, so a leaked sessions table
/// (a backup, a read-only SQL injection) holds nothing a browser could
/// present. Tokens are random (128 bits or more), so no salt is needed.
pub fn stored_session_token(raw: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(raw.as_bytes());
    let mut out = String::with_capacity(64);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// A session token must fit in the cookies it is read back from.
fn check_cookie_size(encoded: String) -> Result<String, AuthError> {
    if encoded.len() > crate::cookies::MAX_COOKIE_VALUE {
        return Err(AuthError::new(
            ErrorType::JWTSessionError,
            format!(
                "the session token is {} bytes, over the {} a session cookie holds; keep less in the jwt callback",
                encoded.len(),
                crate::cookies::MAX_COOKIE_VALUE
            ),
        ));
    }
    Ok(encoded)
}

/// `{ name, email, image }` from the token's `name`, `email`, `picture`;
/// absent claims stay absent, as in Auth.js.
fn user_from_token(token: &Map<String, Value>) -> Map<String, Value> {
    let mut user = Map::new();
    for (to, from) in [("name", "name"), ("email", "email"), ("image", "picture")] {
        if let Some(v) = token.get(from) {
            user.insert(to.into(), v.clone());
        }
    }
    user
}

/// The session the client sees: `{ user, expires }`, `expires` as an ISO
/// string with milliseconds (`expires_at` in unix seconds), and `amr`, how
/// the user signed in (RFC 8176 values, e.g. `["pwd", "otp"]`), where the
/// engine recorded it.
fn session_value(user: Map<String, Value>, expires_at: u64, amr: Option<Value>) -> Value {
    let mut session = Map::new();
    session.insert("user".into(), Value::Object(user));
    session.insert("expires".into(), Value::String(iso_millis(expires_at.saturating_mul(1000))));
    if let Some(amr) = amr {
        session.insert("amr".into(), amr);
    }
    Value::Object(session)
}

/// A token's `exp` as the session's expiry: a finite, non-negative number,
/// bounded by [`crate::jwt::MAX_TIME_CLAIM`] (a jwt callback may have
/// rewritten it, so it is bounded again before any time arithmetic).
fn token_expiry(exp: Option<&Value>) -> Option<u64> {
    exp.and_then(Value::as_f64)
        .filter(|e| e.is_finite() && *e >= 0.0)
        .map(|e| (e as u64).min(crate::jwt::MAX_TIME_CLAIM))
}

fn jwt_session_error(e: crate::jwt::JwtError) -> AuthError {
    AuthError::new(ErrorType::JWTSessionError, e.to_string()).with_source(e)
}

/// A claim as the token holds it: absent, or present with any JSON value
/// (`null` included, which the session passes on as `null`, as Auth.js).
#[derive(Default)]
enum Claim {
    #[default]
    Absent,
    Present(Value),
}

impl<'de> Deserialize<'de> for Claim {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Claim, D::Error> {
        Value::deserialize(d).map(Claim::Present)
    }
}

impl Claim {
    fn get(&self) -> Option<&Value> {
        match self {
            Claim::Absent => None,
            Claim::Present(v) => Some(v),
        }
    }
}

/// The claims a session read shows or checks; the others (`sub`, `jti`,
/// whatever a sign-in added) are skipped unparsed.
#[derive(Default, Deserialize)]
#[serde(default)]
struct SessionClaims {
    name: Claim,
    email: Claim,
    picture: Claim,
    exp: Claim,
    iat: Claim,
    nbf: Claim,
    /// The engine's identity claim ([`crate::identity::CLAIM`]).
    libauth: Claim,
    /// Whose session it is, for a token without the identity claim.
    sub: Claim,
}

impl SessionClaims {
    /// `None` unless `payload` is UTF-8 text of one JSON object naming each
    /// of these claims at most once (serde refuses a repeated field, and a
    /// struct would also accept an array, hence the `{` check).
    fn parse(payload: &[u8]) -> Option<SessionClaims> {
        let text = std::str::from_utf8(payload).ok()?;
        if !text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{') {
            return None;
        }
        // serde skips the claims this struct does not name without serde_json's
        // nesting limit, which the full path (a `Value`) applies: leave a
        // payload nested that deep to the full path, which refuses it.
        if !within_json_depth_limit(payload) {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// `{ name, email, image }` from `name`, `email` and `picture`, each
    /// only when present.
    fn user(self) -> Map<String, Value> {
        let mut user = Map::new();
        for (to, claim) in [("name", self.name), ("email", self.email), ("image", self.picture)] {
            if let Claim::Present(v) = claim {
                user.insert(to.into(), v);
            }
        }
        user
    }
}

/// serde_json refuses to parse a document nested 128 containers deep (or
/// more) into a `Value`.
const JSON_MAX_DEPTH: usize = 128;

/// Whether no array or object in `json` is nested [`JSON_MAX_DEPTH`] deep:
/// one pass over the bytes, brackets inside strings not counted.
fn within_json_depth_limit(json: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in json {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth >= JSON_MAX_DEPTH {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// The token a sign-in starts from: the user's name, email, picture and id.
pub(crate) fn default_token(user: &Map<String, Value>) -> Map<String, Value> {
    let mut token = Map::new();
    for (to, from) in [("name", "name"), ("email", "email"), ("picture", "image"), ("sub", "id")] {
        if let Some(v) = user.get(from) {
            token.insert(to.into(), v.clone());
        }
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The depth check says yes exactly when serde_json parses a `Value`,
    /// for every nesting depth and container shape around the limit.
    #[test]
    fn depth_check_agrees_with_serde_json() {
        for n in 0..JSON_MAX_DEPTH + 8 {
            for (open, close) in [("[", "]"), ("{\"a\":", "}"), ("[{\"b\":", "}]")] {
                let doc = format!("{{\"x\":{}1{},\"s\":\"[[[{{\"}}", open.repeat(n), close.repeat(n));
                let parses = serde_json::from_str::<Value>(&doc).is_ok();
                assert_eq!(within_json_depth_limit(doc.as_bytes()), parses, "depth {n} with {open}");
            }
        }
    }
}
