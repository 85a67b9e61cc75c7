//! Configuration of the simulated TikTok app, its test user and every behaviour that the
//! reference (`docs/tiktok-login-kit.md`) marks as unconfirmed.
//!
//! Everything here is `Serialize`/`Deserialize`, so the same settings can be read and changed at
//! run time through `GET`/`POST /__sim/config`. Durations are (fractional) seconds in JSON and
//! their keys end in `_secs`.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Which PKCE `code_challenge` encoding(s) the token endpoint accepts for `code_challenge_method=S256`
/// (reference §3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PkceMode {
    /// RFC 7636: `base64url(sha256(verifier))` without padding. What arctic and most generic clients send.
    #[default]
    #[serde(rename = "base64url")]
    Base64Url,
    /// TikTok's desktop variant: lowercase (case-insensitively compared) hex of `sha256(verifier)`.
    #[serde(rename = "hex")]
    Hex,
    /// Accept either encoding.
    #[serde(rename = "either")]
    Either,
}

/// Redirect-URI registration rules checked when the simulator starts and when the list is changed
/// (reference §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    /// No registration rules beyond "absolute URL, no fragment": convenient for local development
    /// (`http://localhost:3000/...`), which real TikTok refuses for web apps.
    #[default]
    Any,
    /// Login Kit for Web: `https` only, no query, no fragment, under 512 characters, at most 10 URIs.
    Web,
    /// Login Kit for Desktop: `http`/`https`, host `localhost` or `127.0.0.1`, a port (or `*`),
    /// no query, no fragment, under 512 characters, at most 10 URIs.
    Desktop,
}

/// What the simulated user does on the authorization page when the request carries no `sim_action`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthorizeMode {
    /// Log the test user in and redirect back with a code at once (§4 success).
    #[default]
    AutoApprove,
    /// The user cancels: redirect back with `error`/`error_description` (§4 failure, §10 A6).
    Deny,
    /// Show an HTML consent page with one checkbox per scope and Authorize / Cancel buttons.
    Consent,
}

/// What `/v2/user/info/` does when `fields` asks for a field whose scope the token lacks (§9.5, §10 U3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScopeErrorMode {
    /// HTTP 401, `error.code = "scope_not_authorized"`.
    #[default]
    #[serde(rename = "scope_not_authorized")]
    NotAuthorized,
    /// HTTP 400, `error.code = "scope_permission_missed"`.
    #[serde(rename = "scope_permission_missed")]
    PermissionMissed,
    /// HTTP 200; the fields are silently left out of `data.user`.
    #[serde(rename = "omit")]
    Omit,
}

/// Whether `refresh_expires_in` restarts when a refresh token is rotated (unconfirmed, §6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefreshExpiry {
    /// Each refresh gives the (new) refresh token a full `refresh_ttl` again.
    #[default]
    Restart,
    /// The refresh token keeps the deadline of the original grant; `refresh_expires_in` counts down.
    Keep,
}

/// Body of a successful `POST /v2/oauth/revoke/` (§7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevokeBody {
    /// `{}` (the newer docs' example).
    #[default]
    EmptyObject,
    /// An empty body (the classic docs' wording).
    Empty,
}

/// HTTP status of OAuth error bodies from the token and revoke endpoints (unconfirmed, §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OAuthErrorStatus {
    /// Always this status (default: 200, as the one observation in §5.3 says). JSON: `{"fixed": 200}`.
    Fixed(u16),
    /// RFC 6749 §5.2 style: 401 for `invalid_client`, 500 `server_error`, 503
    /// `temporarily_unavailable`, 400 for everything else. JSON: `"rfc6749"`.
    Rfc6749,
}

impl Default for OAuthErrorStatus {
    fn default() -> Self {
        OAuthErrorStatus::Fixed(200)
    }
}

impl OAuthErrorStatus {
    /// The status to send for OAuth error category `error`.
    pub fn status_for(self, error: &str) -> u16 {
        match self {
            OAuthErrorStatus::Fixed(s) => s,
            OAuthErrorStatus::Rfc6749 => match error {
                "invalid_client" => 401,
                "server_error" => 500,
                "temporarily_unavailable" => 503,
                _ => 400,
            },
        }
    }
}

/// The test user that the simulator "logs in". Field names and types follow the user object of
/// `/v2/user/info/` (reference §9.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimUser {
    pub open_id: String,
    pub union_id: String,
    pub avatar_url: String,
    pub avatar_url_100: String,
    pub avatar_large_url: String,
    pub display_name: String,
    pub bio_description: String,
    pub profile_deep_link: String,
    pub is_verified: bool,
    pub username: String,
    pub follower_count: i64,
    pub following_count: i64,
    pub likes_count: i64,
    pub video_count: i64,
    /// Only served when [`SimConfig::profile_web_link`] is on (its existence is unconfirmed, §9.2).
    pub profile_web_link: String,
}

impl Default for SimUser {
    fn default() -> Self {
        SimUser {
            open_id: "5f1d3c2b-7a4e-4c1d-9b8a-1e2f3a4b5c6d".into(),
            union_id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d".into(),
            avatar_url: "https://example.com/tiktok-sim/avatar_168x168.jpeg".into(),
            avatar_url_100: "https://example.com/tiktok-sim/avatar_100x100.jpeg".into(),
            avatar_large_url: "https://example.com/tiktok-sim/avatar_1080x1080.jpeg".into(),
            display_name: "Sim Creator".into(),
            bio_description: "Test account served by the TikTok Login Kit simulator.".into(),
            profile_deep_link: "https://www.tiktok.com/@sim.creator".into(),
            is_verified: true,
            username: "sim.creator".into(),
            follower_count: 1234,
            following_count: 56,
            likes_count: 78901,
            video_count: 42,
            profile_web_link: "https://www.tiktok.com/@sim.creator".into(),
        }
    }
}

/// The simulated app registration, test user and behaviour switches.
///
/// `SimConfig::default()` is a ready-to-use test app: client key `sim-client-key`, secret
/// `sim-client-secret`, a few `localhost:3000` redirect URIs, every login scope enabled, the
/// newer docs' lifetimes (2 h / 180 d) with refresh-token rotation. Change fields with struct
/// update syntax: `SimConfig { redirect_uris: vec![...], ..Default::default() }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimConfig {
    /// The app's `client_key` (§1: not `client_id`).
    pub client_key: String,
    /// The app's `client_secret`.
    pub client_secret: String,
    /// Registered redirect URIs. `redirect_uri` must equal one of them exactly; on the Desktop and
    /// Any platforms a registered `http://127.0.0.1:*/cb/` matches any port (§2).
    pub redirect_uris: Vec<String>,
    /// Which registration rules `redirect_uris` must follow (§2).
    pub platform: Platform,
    /// Scopes enabled (approved) for the app. Any other requested scope gives the error page (§3.3, A3).
    pub app_scopes: Vec<String>,
    /// The test user.
    pub user: SimUser,
    /// Access-token lifetime (`expires_in`).
    #[serde(rename = "access_ttl_secs", with = "secs")]
    pub access_ttl: Duration,
    /// Refresh-token lifetime (`refresh_expires_in`).
    #[serde(rename = "refresh_ttl_secs", with = "secs")]
    pub refresh_ttl: Duration,
    /// Authorization-code lifetime (unconfirmed; "about 5 minutes", §4).
    #[serde(rename = "code_ttl_secs", with = "secs")]
    pub code_ttl: Duration,
    /// Lifetime of `client_credentials` tokens (§8: 2 h).
    #[serde(rename = "client_token_ttl_secs", with = "secs")]
    pub client_token_ttl: Duration,
    /// Rotate the refresh token on every refresh and refuse the old one (newer docs, §6).
    pub rotate_refresh_tokens: bool,
    /// Whether a refresh restarts the refresh token's lifetime (unconfirmed, §6).
    pub refresh_expiry: RefreshExpiry,
    /// Accepted PKCE challenge encoding(s) (§3.2).
    pub pkce: PkceMode,
    /// Strict mode: the authorize request must carry `code_challenge` (§3.2, A5).
    pub pkce_required: bool,
    /// The authorize request must carry a non-empty `state`.
    pub require_state: bool,
    /// What the simulated user does when the request has no `sim_action`.
    pub authorize_mode: AuthorizeMode,
    /// Scopes the simulated user grants when the request has no `sim_grant`; `None` = all requested.
    /// The granted set is always the intersection with the requested scopes.
    pub grant_scopes: Option<Vec<String>>,
    /// `error` on the redirect when the user denies (unconfirmed for web, §4).
    pub deny_error: String,
    /// `error_description` on the redirect when the user denies.
    pub deny_error_description: String,
    /// Echo `state` on error redirects (unconfirmed, §4).
    pub echo_state_on_error: bool,
    /// HTTP status of the authorize error page (unconfirmed, §3.3).
    pub authorize_error_status: u16,
    /// HTTP status of token / revoke error bodies (unconfirmed, §5.3).
    pub oauth_error_status: OAuthErrorStatus,
    /// Support `grant_type=client_credentials` (§8); if off it answers `unauthorized_client`.
    pub client_credentials: bool,
    /// Body of a successful revoke (§7).
    pub revoke_body: RevokeBody,
    /// User-info behaviour for fields whose scope was not granted (§9.5).
    pub scope_error: ScopeErrorMode,
    /// Include `"data": {}` in user-info error envelopes (unconfirmed, §9.4).
    pub user_info_error_data: bool,
    /// Serve the `profile_web_link` field under `user.info.profile` (unconfirmed, §9.2). When off,
    /// asking for it is an unknown field (`invalid_params`).
    pub profile_web_link: bool,
    /// User-info requests allowed per sliding minute before HTTP 429 `rate_limit_exceeded`
    /// (§9.6: 600). Counted per app (i.e. for the whole simulator). `None` = no limit.
    pub user_info_rate_limit: Option<u32>,
    /// Print one line per request to stderr.
    pub log_requests: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            client_key: "sim-client-key".into(),
            client_secret: "sim-client-secret".into(),
            redirect_uris: vec![
                "http://localhost:3000/api/auth/callback/tiktok".into(),
                "http://127.0.0.1:3000/api/auth/callback/tiktok".into(),
                "http://localhost:3000/auth/callback/tiktok".into(),
            ],
            platform: Platform::Any,
            app_scopes: vec![
                "user.info.basic".into(),
                "user.info.profile".into(),
                "user.info.stats".into(),
                "video.list".into(),
            ],
            user: SimUser::default(),
            access_ttl: Duration::from_secs(NEWER_ACCESS_TTL),
            refresh_ttl: Duration::from_secs(NEWER_REFRESH_TTL),
            code_ttl: Duration::from_secs(300),
            client_token_ttl: Duration::from_secs(7200),
            rotate_refresh_tokens: true,
            refresh_expiry: RefreshExpiry::Restart,
            pkce: PkceMode::Base64Url,
            pkce_required: false,
            require_state: true,
            authorize_mode: AuthorizeMode::AutoApprove,
            grant_scopes: None,
            deny_error: "access_denied".into(),
            deny_error_description: "The user denied the request".into(),
            echo_state_on_error: true,
            authorize_error_status: 400,
            oauth_error_status: OAuthErrorStatus::Fixed(200),
            client_credentials: true,
            revoke_body: RevokeBody::EmptyObject,
            scope_error: ScopeErrorMode::NotAuthorized,
            user_info_error_data: true,
            profile_web_link: true,
            user_info_rate_limit: Some(600),
            log_requests: false,
        }
    }
}

/// Newer docs: access tokens live 2 h.
pub const NEWER_ACCESS_TTL: u64 = 7_200;
/// Newer docs: refresh tokens live 180 days.
pub const NEWER_REFRESH_TTL: u64 = 15_552_000;
/// Classic docs: access tokens live 24 h.
pub const CLASSIC_ACCESS_TTL: u64 = 86_400;
/// Classic docs: refresh tokens live 365 days.
pub const CLASSIC_REFRESH_TTL: u64 = 31_536_000;

impl SimConfig {
    /// The defaults, but with the "classic" docs' lifetimes (24 h / 365 d) and no refresh-token
    /// rotation (the classic docs only say the returned token *may* differ).
    pub fn classic() -> Self {
        SimConfig {
            access_ttl: Duration::from_secs(CLASSIC_ACCESS_TTL),
            refresh_ttl: Duration::from_secs(CLASSIC_REFRESH_TTL),
            rotate_refresh_tokens: false,
            ..SimConfig::default()
        }
    }

    /// Check the registration (redirect URIs against [`Platform`] rules, non-empty credentials).
    pub fn validate(&self) -> Result<(), String> {
        if self.client_key.is_empty() {
            return Err("client_key must not be empty".into());
        }
        if self.client_secret.is_empty() {
            return Err("client_secret must not be empty".into());
        }
        if self.redirect_uris.is_empty() {
            return Err("at least one redirect URI must be registered".into());
        }
        if self.platform != Platform::Any && self.redirect_uris.len() > 10 {
            return Err("at most 10 redirect URIs may be registered".into());
        }
        for uri in &self.redirect_uris {
            validate_redirect_uri(self.platform, uri).map_err(|e| format!("redirect URI {uri:?}: {e}"))?;
        }
        Ok(())
    }
}

fn validate_redirect_uri(platform: Platform, uri: &str) -> Result<(), String> {
    if uri.contains('#') {
        return Err("a fragment (#) is not allowed".into());
    }
    // Parse with the wildcard port replaced by a real one.
    let parsed = url::Url::parse(&uri.replacen(":*", ":1", 1)).map_err(|e| format!("not an absolute URL ({e})"))?;
    if platform == Platform::Any {
        return Ok(());
    }
    if uri.len() >= 512 {
        return Err("must be under 512 characters".into());
    }
    if parsed.query().is_some() {
        return Err("a query string is not allowed".into());
    }
    match platform {
        Platform::Web => {
            if parsed.scheme() != "https" {
                return Err("web redirect URIs must use https".into());
            }
            if uri.contains(":*") {
                return Err("a wildcard port is only allowed for desktop".into());
            }
        }
        Platform::Desktop => {
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err("desktop redirect URIs must use http or https".into());
            }
            if !matches!(parsed.host_str(), Some("localhost") | Some("127.0.0.1")) {
                return Err("desktop redirect URIs must use localhost or 127.0.0.1".into());
            }
            if parsed.port().is_none() {
                return Err("desktop redirect URIs need a port (or *)".into());
            }
        }
        Platform::Any => {}
    }
    Ok(())
}

/// The simulator's endpoints, for [`Failure::Raw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    Authorize,
    Token,
    Revoke,
    UserInfo,
}

/// A failure injected for the next request to one endpoint (`Simulator::set_next_failure`,
/// `POST /__sim/fail`). Failures queue up; each is used once, by the next request to its endpoint,
/// before any validation, and leaves all other state (codes, tokens) untouched.
///
/// JSON form (internally tagged by `endpoint`), e.g.
/// `{"endpoint":"token","error":"server_error","error_description":"boom","status":200}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "endpoint", rename_all = "snake_case")]
pub enum Failure {
    /// The token endpoint answers `{error, error_description, log_id}` (§5.3). `status: None` uses
    /// [`SimConfig::oauth_error_status`].
    Token {
        error: String,
        #[serde(default)]
        error_description: String,
        #[serde(default)]
        status: Option<u16>,
    },
    /// The revoke endpoint answers `{error, error_description, log_id}` (§7, §5.3).
    Revoke {
        error: String,
        #[serde(default)]
        error_description: String,
        #[serde(default)]
        status: Option<u16>,
    },
    /// User info answers `{data:{}, error:{code, message, log_id}}` (§9.4). `status: None` uses the
    /// §9.5 table (e.g. 401 for `access_token_invalid`, 500 for `internal_error`).
    UserInfo {
        code: String,
        #[serde(default)]
        message: String,
        #[serde(default)]
        status: Option<u16>,
    },
    /// The authorize endpoint, after validating the request, redirects back with this error
    /// (and `state`, if [`SimConfig::echo_state_on_error`]).
    AuthorizeRedirect {
        #[serde(default = "access_denied")]
        error: String,
        #[serde(default)]
        error_description: String,
    },
    /// The authorize endpoint shows TikTok's "Something went wrong" page naming `parameter`.
    AuthorizePage { parameter: String },
    /// Any endpoint answers exactly this (e.g. an HTML 502 from a proxy).
    Raw {
        target: Endpoint,
        status: u16,
        #[serde(default)]
        body: String,
        #[serde(default = "text_plain")]
        content_type: String,
    },
}

fn access_denied() -> String {
    "access_denied".into()
}

fn text_plain() -> String {
    "text/plain; charset=utf-8".into()
}

impl Failure {
    /// Token endpoint error body with the configured status.
    pub fn token(error: &str, error_description: &str) -> Self {
        Failure::Token { error: error.into(), error_description: error_description.into(), status: None }
    }
    /// Revoke endpoint error body with the configured status.
    pub fn revoke(error: &str, error_description: &str) -> Self {
        Failure::Revoke { error: error.into(), error_description: error_description.into(), status: None }
    }
    /// User-info error envelope with the §9.5 status for `code`.
    pub fn user_info(code: &str, message: &str) -> Self {
        Failure::UserInfo { code: code.into(), message: message.into(), status: None }
    }
    /// Authorize redirect with `error` / `error_description`.
    pub fn authorize_redirect(error: &str, error_description: &str) -> Self {
        Failure::AuthorizeRedirect { error: error.into(), error_description: error_description.into() }
    }
    /// Authorize error page naming `parameter`.
    pub fn authorize_page(parameter: &str) -> Self {
        Failure::AuthorizePage { parameter: parameter.into() }
    }
    /// A raw response from `target`.
    pub fn raw(target: Endpoint, status: u16, content_type: &str, body: &str) -> Self {
        Failure::Raw { target, status, body: body.into(), content_type: content_type.into() }
    }
    /// Override the HTTP status (token, revoke, user info and raw failures; ignored otherwise).
    pub fn with_status(mut self, new: u16) -> Self {
        match &mut self {
            Failure::Token { status, .. } | Failure::Revoke { status, .. } | Failure::UserInfo { status, .. } => {
                *status = Some(new)
            }
            Failure::Raw { status, .. } => *status = new,
            Failure::AuthorizeRedirect { .. } | Failure::AuthorizePage { .. } => {}
        }
        self
    }
    /// The endpoint this failure is for.
    pub fn endpoint(&self) -> Endpoint {
        match self {
            Failure::Token { .. } => Endpoint::Token,
            Failure::Revoke { .. } => Endpoint::Revoke,
            Failure::UserInfo { .. } => Endpoint::UserInfo,
            Failure::AuthorizeRedirect { .. } | Failure::AuthorizePage { .. } => Endpoint::Authorize,
            Failure::Raw { target, .. } => *target,
        }
    }
}

/// The HTTP status TikTok documents for a v2 API `error.code` (reference §9.5).
pub fn api_error_status(code: &str) -> u16 {
    match code {
        "ok" => 200,
        "access_token_invalid" | "scope_not_authorized" => 401,
        "scope_permission_missed" | "invalid_params" | "invalid_file_upload" => 400,
        "rate_limit_exceeded" => 429,
        "internal_error" => 500,
        _ => 400,
    }
}

/// Durations as (fractional) seconds in JSON.
mod secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        if d.subsec_nanos() == 0 {
            s.serialize_u64(d.as_secs())
        } else {
            s.serialize_f64(d.as_secs_f64())
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        if !v.is_finite() || !(0.0..=1e12).contains(&v) {
            return Err(serde::de::Error::custom("a duration must be a non-negative number of seconds"));
        }
        Ok(Duration::from_secs_f64(v))
    }
}
