//! The records the stores keep, in the shapes of Auth.js's adapter types
//! (`AdapterUser`, `AdapterAccount`, `AdapterSession`, `VerificationToken`,
//! `AdapterAuthenticator`), so a host adapter's JSON maps onto them one to
//! one. Dates are `i64` unix milliseconds, except
//! [`AdapterAccount::expires_at`], in seconds as OAuth token responses
//! have it.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::date;

/// A stored user (Auth.js `AdapterUser`). `email` is optional because some
/// providers (TikTok) have none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterUser {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    /// When the email address was verified (unix ms); `null` until then.
    #[serde(default, with = "date::option_ms")]
    pub email_verified: Option<i64>,
    #[serde(default)]
    pub image: Option<String>,
    /// The user's language (a BCP 47 tag), when the adapter keeps one: a
    /// host adapter returns it as `locale`; the memory adapter keeps it, and
    /// the SQLite and PostgreSQL adapters from schema version 4 (a `locale`
    /// column). The built-in pages use it (see `i18n.resolve`, step `user`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
}

/// A user to create. Without an `id` the adapter generates one (a UUID);
/// with one (Auth.js v5 core may pass its own) the adapter stores it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewUser {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default, with = "date::option_ms")]
    pub email_verified: Option<i64>,
    #[serde(default)]
    pub image: Option<String>,
    /// The user's language, when the provider's profile (as the `profile`
    /// callback maps it) has a `locale`: kept by the built-in adapters
    /// (SQLite and PostgreSQL from schema version 4) and passed to a host
    /// adapter's `createUser`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
}

impl NewUser {
    /// The user this becomes once stored under `id`.
    pub fn with_id(&self, id: String) -> AdapterUser {
        AdapterUser {
            id,
            name: self.name.clone(),
            email: self.email.clone(),
            email_verified: self.email_verified,
            image: self.image.clone(),
            locale: self.locale.clone(),
        }
    }
}

/// A partial update of a user (Auth.js `updateUser(Partial<AdapterUser> &
/// { id })`): for each field, `None` keeps it, `Some(None)` clears it,
/// `Some(Some(v))` sets it. In JSON, an absent key keeps and `null` clears.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserUpdate {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub name: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub email: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "date::patch_ms")]
    pub email_verified: Option<Option<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub image: Option<Option<String>>,
    /// The user's language (see [`AdapterUser::locale`]).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub locale: Option<Option<String>>,
}

impl UserUpdate {
    /// `user` with this update applied.
    pub fn apply_to(&self, user: &AdapterUser) -> AdapterUser {
        AdapterUser {
            id: user.id.clone(),
            name: self.name.clone().unwrap_or_else(|| user.name.clone()),
            email: self.email.clone().unwrap_or_else(|| user.email.clone()),
            email_verified: self.email_verified.unwrap_or(user.email_verified),
            image: self.image.clone().unwrap_or_else(|| user.image.clone()),
            locale: self.locale.clone().unwrap_or_else(|| user.locale.clone()),
        }
    }
}

/// The kind of provider an account links (spec `ProviderType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountType {
    #[serde(rename = "oauth")]
    OAuth,
    Oidc,
    Email,
    Credentials,
    /// A passkey's account: `providerAccountId` is the credential id.
    #[serde(rename = "webauthn")]
    WebAuthn,
}

impl AccountType {
    pub fn as_str(self) -> &'static str {
        self.name_ref()
    }

    /// [`AccountType::as_str`] behind a `'static` reference, for the SQL
    /// adapters' parameter arrays (`&dyn ToSql` each).
    pub(crate) fn name_ref(self) -> &'static &'static str {
        match self {
            AccountType::OAuth => &"oauth",
            AccountType::Oidc => &"oidc",
            AccountType::Email => &"email",
            AccountType::Credentials => &"credentials",
            AccountType::WebAuthn => &"webauthn",
        }
    }

    pub fn parse(s: &str) -> Option<AccountType> {
        [Self::OAuth, Self::Oidc, Self::Email, Self::Credentials, Self::WebAuthn].into_iter().find(|t| t.as_str() == s)
    }
}

/// A provider account linked to a user (Auth.js's `AdapterAccount`).
/// Token fields keep their OAuth snake_case names; any other field of the
/// token response (e.g. `expires_in`, `refresh_token_expires_in`) is kept
/// in `extra` and stored as JSON.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct AdapterAccount {
    /// The owner. Ignored by [`super::AccountStore::create_user_and_link_account`],
    /// which fills it in.
    #[serde(rename = "userId", default, skip_serializing_if = "String::is_empty")]
    pub user_id: String,
    #[serde(rename = "type")]
    pub account_type: AccountType,
    pub provider: String,
    #[serde(rename = "providerAccountId")]
    pub provider_account_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Absolute expiry of the access token, unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// Lowercase (`bearer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_state: Option<String>,
    /// Every other field, as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AdapterAccount {
    /// An account with no tokens.
    pub fn new(account_type: AccountType, provider: &str, provider_account_id: &str) -> Self {
        AdapterAccount {
            user_id: String::new(),
            account_type,
            provider: provider.to_owned(),
            provider_account_id: provider_account_id.to_owned(),
            access_token: None,
            refresh_token: None,
            expires_at: None,
            token_type: None,
            scope: None,
            id_token: None,
            session_state: None,
            extra: Map::new(),
        }
    }
}

/// Tokens are credentials: `Debug` shows whether they are present, never
/// their value, so an account can be logged safely.
impl fmt::Debug for AdapterAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdapterAccount")
            .field("user_id", &self.user_id)
            .field("account_type", &self.account_type)
            .field("provider", &self.provider)
            .field("provider_account_id", &self.provider_account_id)
            .field("access_token", &Redacted(&self.access_token))
            .field("refresh_token", &Redacted(&self.refresh_token))
            .field("expires_at", &self.expires_at)
            .field("token_type", &self.token_type)
            .field("scope", &self.scope)
            .field("id_token", &Redacted(&self.id_token))
            .field("session_state", &Redacted(&self.session_state))
            .field("extra", &format_args!("{{{} keys}}", self.extra.len()))
            .finish()
    }
}

/// A passkey: Auth.js's `AdapterAuthenticator`, plus a name the user gives
/// it and when it was created and last used (unix ms; `None` in rows an
/// Auth.js database wrote).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authenticator {
    /// The credential id, base64url without padding. Unique across users.
    #[serde(rename = "credentialID")]
    pub credential_id: String,
    pub user_id: String,
    /// The linked `webauthn` account's id: the credential id.
    pub provider_account_id: String,
    /// The COSE public key, standard base64 (as Auth.js stores it).
    pub credential_public_key: String,
    /// The signature counter last seen (0 for authenticators without one).
    pub counter: u32,
    /// `singleDevice` or `multiDevice` (backup eligible).
    pub credential_device_type: String,
    pub credential_backed_up: bool,
    /// Comma-separated transports (`internal,hybrid`), as Auth.js stores them.
    #[serde(default)]
    pub transports: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, with = "date::option_ms")]
    pub created_at: Option<i64>,
    #[serde(default, with = "date::option_ms")]
    pub last_used_at: Option<i64>,
}

/// A database session (Auth.js `AdapterSession`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterSession {
    pub session_token: String,
    pub user_id: String,
    /// Unix ms.
    #[serde(with = "date::ms")]
    pub expires: i64,
}

impl fmt::Debug for AdapterSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdapterSession")
            .field("session_token", &Redacted(&Some(())))
            .field("user_id", &self.user_id)
            .field("expires", &self.expires)
            .finish()
    }
}

/// What a session records about where it was made, for its owner's list
/// of sessions: when, the browser's `User-Agent` (cut to
/// [`SessionDetails::MAX_USER_AGENT`] bytes) and the client's address cut
/// to its network (/24 for IPv4, /48 for IPv6), never the whole address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionDetails {
    /// Unix ms.
    pub created_at: Option<i64>,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
}

impl SessionDetails {
    pub const MAX_USER_AGENT: usize = 512;
}

/// One of a user's database sessions as the store lists it: the stored
/// token (the key to end it), its expiry and what it recorded when made.
/// Sessions made before these were recorded have no details.
#[derive(Clone, PartialEq, Eq)]
pub struct ListedSession {
    /// The stored token (a hash of the cookie's), as `delete_session` takes
    /// it. Never shown: the engine shows a hash of it as the session's id.
    pub session_token: String,
    /// Unix ms.
    pub expires: i64,
    pub details: SessionDetails,
}

impl fmt::Debug for ListedSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListedSession")
            .field("session_token", &Redacted(&Some(())))
            .field("expires", &self.expires)
            .field("details", &self.details)
            .finish()
    }
}

/// An email sign-in token (Auth.js `VerificationToken`). `identifier` is the
/// email address; `token` is what the adapter stores (the engine stores a
/// hash of the token it mails).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationToken {
    pub identifier: String,
    pub token: String,
    /// Unix ms.
    #[serde(with = "date::ms")]
    pub expires: i64,
}

impl fmt::Debug for VerificationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerificationToken")
            .field("identifier", &self.identifier)
            .field("token", &Redacted(&Some(())))
            .field("expires", &self.expires)
            .finish()
    }
}

struct Redacted<'a, T>(&'a Option<T>);

impl<T> fmt::Debug for Redacted<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Some([redacted])" } else { "None" })
    }
}

/// What a purge of expired rows removed ([`super::Adapter::delete_expired`],
/// [`super::DataStores::purge_expired`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Purged {
    pub sessions: u64,
    pub verification_tokens: u64,
}

/// What an idempotent write ([`super::UserStore::ensure_user`],
/// [`super::AccountStore::ensure_user_with_account`]) resolved to: the stored user, and
/// whether this call created it (`false`: a concurrent call, or an earlier
/// one, stored it first, and this is that row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ensured {
    pub user: AdapterUser,
    pub created: bool,
}

/// `#[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]`
/// for any other field of a partial update: absent = keep, `null` = clear.
mod patch {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, T: Serialize>(change: &Option<Option<T>>, s: S) -> Result<S::Ok, S::Error> {
        match change {
            Some(value) => value.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

/// A new user id: a random UUID, as Auth.js generates.
pub(crate) fn new_user_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
