//! Passkey ceremonies: the WebAuthn options a browser is given and the
//! verification of what it sends back, by `webauthn-rs-core` (client data,
//! authenticator data, COSE keys, attestation and signatures). This module
//! adds what Auth.js's wire protocol and storage need around it: the state
//! carried in the encrypted challenge cookie, passkeys stored in Auth.js's
//! `Authenticator` shape (COSE key bytes, base64url credential ids), and
//! every failure as a typed [`WebAuthnError`].
//!
//! Stricter than Auth.js, on purpose: only the algorithms offered are
//! accepted, user presence always and user verification by default are
//! required, a signature counter that goes back refuses the assertion (a
//! cloned authenticator), and the caller spends each challenge once on the
//! server (see `routes::webauthn`).

use std::collections::BTreeMap;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_cbor_2::Value as Cbor;
use url::Url;
use webauthn_rs_core::error::WebauthnError;
use webauthn_rs_core::proto::{
    AttestationConveyancePreference, AttestationFormat, AuthenticationState, COSEAlgorithm, COSEKey, COSEKeyType,
    Credential, CredentialID, ECDSACurve, EDDSACurve, ParsedAttestation, PublicKeyCredential,
    PublicKeyCredentialCreationOptions, PublicKeyCredentialRequestOptions, RegisterPublicKeyCredential,
    RegisteredExtensions, RegistrationState, UserVerificationPolicy,
};
use webauthn_rs_core::WebauthnCore;

use crate::providers::webauthn::{UserVerification, WebAuthnProvider};
use crate::store::Authenticator;

/// The algorithms offered, in order of preference: ES256 (every platform
/// authenticator), EdDSA (some security keys), RS256 (Windows Hello).
pub const ALGORITHMS: [COSEAlgorithm; 3] = [COSEAlgorithm::ES256, COSEAlgorithm::EDDSA, COSEAlgorithm::RS256];

/// The ceremony a challenge is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Register,
    Authenticate,
}

impl Action {
    pub fn parse(s: &str) -> Option<Action> {
        match s {
            "register" => Some(Action::Register),
            "authenticate" => Some(Action::Authenticate),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Register => "register",
            Action::Authenticate => "authenticate",
        }
    }
}

/// Why a ceremony failed. Each is the user-facing
/// `WebAuthnVerificationError`; the variant says why, for the log.
#[derive(Debug, thiserror::Error)]
pub enum WebAuthnError {
    #[error("the credential is not valid JSON of the expected shape: {0}")]
    Malformed(String),
    #[error("no passkey challenge for this browser (missing, expired or tampered challenge cookie)")]
    NoChallenge,
    #[error("the challenge was used already or has expired")]
    ChallengeSpent,
    #[error("the challenge cookie is for {expected}, not {given}")]
    WrongAction { expected: &'static str, given: &'static str },
    #[error("no stored passkey has this credential id")]
    UnknownCredential,
    #[error("this credential was not offered for this sign-in")]
    CredentialNotAllowed,
    #[error("this passkey is registered already")]
    AlreadyRegistered,
    #[error("the stored passkey is unreadable: {0}")]
    StoredKey(String),
    #[error("the authenticator's signature counter went back: the passkey may be cloned")]
    CounterRegression,
    #[error("verification failed: {0}")]
    Verification(String),
    #[error("the attestation statement is not what its format allows: {0}")]
    Attestation(&'static str),
}

/// A failed ceremony is Auth.js's `WebAuthnVerificationError`.
impl From<WebAuthnError> for crate::error::AuthError {
    fn from(e: WebAuthnError) -> Self {
        crate::error::AuthError::new(crate::error::ErrorType::WebAuthnVerificationError, e.to_string()).with_source(e)
    }
}

impl From<WebauthnError> for WebAuthnError {
    fn from(e: WebauthnError) -> Self {
        match e {
            WebauthnError::CredentialPossibleCompromise => WebAuthnError::CounterRegression,
            WebauthnError::CredentialNotFound => WebAuthnError::CredentialNotAllowed,
            other => WebAuthnError::Verification(format!("{other:?}")),
        }
    }
}

/// The relying party for one request: the provider's settings, each unset
/// one from the deployment's origin.
pub struct RelyingParty {
    pub id: String,
    pub name: String,
    pub origin: Url,
}

impl RelyingParty {
    pub fn resolve(provider: &WebAuthnProvider, deployment_origin: &str) -> Option<RelyingParty> {
        let origin = match &provider.relying_party.origin {
            Some(origin) => origin.clone(),
            None => Url::parse(deployment_origin).ok()?,
        };
        let id = match &provider.relying_party.id {
            Some(id) => id.clone(),
            None => origin.host_str()?.to_owned(),
        };
        let name = provider.relying_party.name.clone().unwrap_or_else(|| id.clone());
        Some(RelyingParty { id, name, origin })
    }

    fn core(&self, provider: &WebAuthnProvider) -> WebauthnCore {
        // Exact origin and port: a passkey for https://app.example.com is
        // not accepted from a sibling subdomain or another port.
        WebauthnCore::new_unsafe_experts_only(
            &self.name,
            &self.id,
            vec![self.origin.clone()],
            provider.timeout,
            Some(false),
            Some(false),
        )
    }
}

fn policy(provider: &WebAuthnProvider) -> UserVerificationPolicy {
    match provider.user_verification {
        UserVerification::Required => UserVerificationPolicy::Required,
        UserVerification::Preferred => UserVerificationPolicy::Preferred,
    }
}

/// What the challenge cookie carries between the options and the callback.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    pub action: Action,
    /// The challenge, base64url: the server-side single-use key.
    pub challenge: String,
    /// Registration: the library's state, and the user being registered
    /// (`id`, `email`, `name`; the id is also the WebAuthn user handle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration: Option<RegistrationState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<serde_json::Map<String, serde_json::Value>>,
    /// Authentication: the library's state, and the credential ids offered
    /// (`None`: discoverable, any of the user's passkeys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<String>>,
}

/// The user a registration is for.
pub struct NewPasskeyUser<'a> {
    pub id: &'a str,
    pub email: &'a str,
    pub display_name: &'a str,
}

/// Registration options (`PublicKeyCredentialCreationOptionsJSON`) and
/// their pending state. `exclude` are the user's passkeys already stored.
pub fn registration_options(
    provider: &WebAuthnProvider,
    rp: &RelyingParty,
    user: &NewPasskeyUser,
    exclude: &[Authenticator],
) -> Result<(PublicKeyCredentialCreationOptions, Pending), WebAuthnError> {
    let core = rp.core(provider);
    let exclude: Vec<CredentialID> =
        exclude.iter().filter_map(|a| URL_SAFE_NO_PAD.decode(&a.credential_id).ok()).map(Into::into).collect();
    let builder = core
        .new_challenge_register_builder(user.id.as_bytes(), user.email, user.display_name)?
        .attestation(AttestationConveyancePreference::None)
        .user_verification_policy(policy(provider))
        .exclude_credentials((!exclude.is_empty()).then_some(exclude))
        .credential_algorithms(ALGORITHMS.to_vec())
        // Discoverable: what lets a passkey sign in without a username,
        // and offer itself in the username field's autofill.
        .require_resident_key(true);
    let (options, state) = core.generate_challenge_register(builder)?;
    let options = options.public_key;
    let challenge = URL_SAFE_NO_PAD.encode(options.challenge.as_ref());
    Ok((
        options,
        Pending {
            action: Action::Register,
            challenge,
            registration: Some(state),
            user: None,
            authentication: None,
            allowed: None,
        },
    ))
}

/// Authentication options (`PublicKeyCredentialRequestOptionsJSON`) and
/// their pending state. With no `allowed` passkeys the sign-in is
/// discoverable: the authenticator offers the user's passkeys.
pub fn authentication_options(
    provider: &WebAuthnProvider,
    rp: &RelyingParty,
    allowed: &[Authenticator],
) -> Result<(PublicKeyCredentialRequestOptions, Pending), WebAuthnError> {
    let core = rp.core(provider);
    let builder = core.new_challenge_authenticate_builder(Vec::new(), Some(policy(provider)))?;
    let (options, state) = core.generate_challenge_authenticate(builder)?;
    let mut options = options.public_key;
    options.allow_credentials = allowed
        .iter()
        .filter_map(|a| {
            let id = URL_SAFE_NO_PAD.decode(&a.credential_id).ok()?;
            Some(webauthn_rs_core::proto::AllowCredentials {
                type_: "public-key".into(),
                id: id.into(),
                transports: a.transports.as_deref().map(parse_transports),
            })
        })
        .collect();
    let challenge = URL_SAFE_NO_PAD.encode(options.challenge.as_ref());
    let allowed = (!allowed.is_empty()).then(|| allowed.iter().map(|a| a.credential_id.clone()).collect());
    Ok((
        options,
        Pending {
            action: Action::Authenticate,
            challenge,
            registration: None,
            user: None,
            authentication: Some(state),
            allowed,
        },
    ))
}

/// Parse the browser's registration credential (`credential.toJSON()`).
pub fn parse_registration(data: &str) -> Result<RegisterPublicKeyCredential, WebAuthnError> {
    serde_json::from_str(data).map_err(|e| WebAuthnError::Malformed(e.to_string()))
}

/// Parse the browser's assertion credential (`credential.toJSON()`).
pub fn parse_assertion(data: &str) -> Result<PublicKeyCredential, WebAuthnError> {
    serde_json::from_str(data).map_err(|e| WebAuthnError::Malformed(e.to_string()))
}

/// The credential id of an assertion, base64url (the stored key).
pub fn assertion_credential_id(credential: &PublicKeyCredential) -> String {
    URL_SAFE_NO_PAD.encode(credential.raw_id.as_ref())
}

/// The user handle an assertion names (a discoverable credential's user
/// id), if it carries one.
pub fn assertion_user_handle(credential: &PublicKeyCredential) -> Option<String> {
    credential.get_user_unique_id().and_then(|id| String::from_utf8(id.to_vec()).ok())
}

/// The attestation object's statement must fit its format where the
/// verifier below does not look: format `none` means an empty statement
/// (webauthn-rs-core accepts `none` with any `attStmt`). Other formats are
/// checked by webauthn-rs-core itself.
pub fn check_attestation_statement(attestation_object: &[u8]) -> Result<(), WebAuthnError> {
    let Ok(Cbor::Map(object)) = serde_cbor_2::from_slice::<Cbor>(attestation_object) else {
        return Err(WebAuthnError::Attestation("the attestation object is not a CBOR map"));
    };
    let field = |name: &str| object.get(&Cbor::Text(name.to_owned()));
    match (field("fmt"), field("attStmt")) {
        (Some(Cbor::Text(fmt)), Some(Cbor::Map(statement))) if fmt == "none" && !statement.is_empty() => {
            Err(WebAuthnError::Attestation("format none with a non-empty attStmt"))
        }
        (Some(Cbor::Text(fmt)), Some(statement)) if fmt == "none" && !matches!(statement, Cbor::Map(_)) => {
            Err(WebAuthnError::Attestation("format none with an attStmt that is not a map"))
        }
        (Some(Cbor::Text(fmt)), None) if fmt == "none" => {
            Err(WebAuthnError::Attestation("format none without attStmt"))
        }
        _ => Ok(()),
    }
}

/// Verify a registration against its pending state; the new passkey,
/// for `user_id`, in Auth.js's storage shape.
pub fn verify_registration(
    provider: &WebAuthnProvider,
    rp: &RelyingParty,
    pending: &Pending,
    credential: &RegisterPublicKeyCredential,
    user_id: &str,
    now_ms: i64,
) -> Result<Authenticator, WebAuthnError> {
    let state = pending
        .registration
        .as_ref()
        .ok_or(WebAuthnError::WrongAction { expected: pending.action.as_str(), given: Action::Register.as_str() })?;
    check_attestation_statement(credential.response.attestation_object.as_ref())?;
    let verified = rp.core(provider).register_credential(credential, state, None)?;
    let id = URL_SAFE_NO_PAD.encode(verified.cred_id.as_ref());
    let transports = credential.response.transports.as_ref().map(|list| {
        list.iter()
            .filter(|t| !matches!(t, webauthn_rs_core::proto::AuthenticatorTransport::Unknown))
            .filter_map(|t| serde_json::to_value(t).ok().and_then(|v| v.as_str().map(str::to_owned)))
            .collect::<Vec<_>>()
            .join(",")
    });
    Ok(Authenticator {
        credential_id: id.clone(),
        user_id: user_id.to_owned(),
        provider_account_id: id,
        credential_public_key: STANDARD.encode(encode_cose_key(&verified.cred)?),
        counter: verified.counter,
        credential_device_type: if verified.backup_eligible { "multiDevice" } else { "singleDevice" }.to_owned(),
        credential_backed_up: verified.backup_state,
        transports: transports.filter(|t| !t.is_empty()),
        name: None,
        created_at: Some(now_ms),
        last_used_at: None,
    })
}

/// Verify an assertion made with `stored` against its pending state; the
/// new signature counter.
pub fn verify_assertion(
    provider: &WebAuthnProvider,
    rp: &RelyingParty,
    pending: &Pending,
    credential: &PublicKeyCredential,
    stored: &Authenticator,
) -> Result<u32, WebAuthnError> {
    let state = pending.authentication.as_ref().ok_or(WebAuthnError::WrongAction {
        expected: pending.action.as_str(),
        given: Action::Authenticate.as_str(),
    })?;
    if let Some(allowed) = &pending.allowed {
        if !allowed.iter().any(|id| id == &stored.credential_id) {
            return Err(WebAuthnError::CredentialNotAllowed);
        }
    }
    let key = stored_key(&stored.credential_public_key)?;
    let cred_id = URL_SAFE_NO_PAD.decode(&stored.credential_id).map_err(|e| WebAuthnError::StoredKey(e.to_string()))?;
    let backup_eligible = stored.credential_device_type == "multiDevice";
    let credential_record = Credential {
        cred_id: cred_id.into(),
        cred: key,
        counter: stored.counter,
        transports: None,
        user_verified: true,
        backup_eligible,
        backup_state: stored.credential_backed_up,
        registration_policy: policy(provider),
        extensions: RegisteredExtensions::none(),
        attestation: ParsedAttestation::default(),
        attestation_format: AttestationFormat::None,
    };
    let mut state = state.clone();
    state.set_allowed_credentials(vec![credential_record]);
    let result = rp.core(provider).authenticate_credential(credential, &state)?;
    Ok(result.counter())
}

/// The adapter methods passkeys need: Auth.js's four, the
/// verification-token pair that spends each challenge once, and the pair
/// that deletes a passkey whole (its account unlinked, then the passkey
/// itself): without `unlinkAccount` a deleted passkey would leave its
/// account behind, and a later registration of the same credential id must
/// never find an owner there.
const REQUIRED_METHODS: [&str; 8] = [
    "getAuthenticator",
    "createAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
    "createVerificationToken",
    "useVerificationToken",
    "unlinkAccount",
    "deleteAuthenticator",
];

/// Refuse, at construction, a passkey provider the engine could not run:
/// without `experimental.enableWebAuthn` (as Auth.js), without an adapter
/// (passkeys are stored), or with an adapter lacking a passkey method.
pub(crate) fn check_config(
    providers: &crate::providers::Providers,
    stores: Option<&crate::store::DataStores>,
    enabled: bool,
) -> Result<(), crate::error::ConfigError> {
    use crate::error::{ConfigError, ErrorType};
    let Some((index, provider)) =
        providers.iter().enumerate().find(|(_, p)| matches!(p.kind, crate::providers::ProviderKind::WebAuthn(_)))
    else {
        return Ok(());
    };
    if !enabled {
        return Err(ConfigError::new(
            "experimental.enableWebAuthn",
            format!(
                "the passkey provider {:?} needs `experimental: {{ enableWebAuthn: true }}` (WebAuthn is experimental in Auth.js)",
                provider.id
            ),
        )
        .with_kind(ErrorType::ExperimentalFeatureNotEnabled));
    }
    let Some(db) = stores else {
        return Err(ConfigError::new(
            format!("providers[{index}]"),
            format!("the passkey provider {:?} stores passkeys and users: configure an adapter", provider.id),
        )
        .with_kind(ErrorType::MissingAdapter));
    };
    let missing: Vec<String> =
        REQUIRED_METHODS.iter().filter(|m| !db.supports(m)).map(|m| format!("adapter.{m}")).collect();
    if !missing.is_empty() {
        return Err(ConfigError::new(
            "adapter",
            format!("passkeys need these adapter methods, which are missing: {}", missing.join(", ")),
        )
        .with_kind(ErrorType::MissingAdapterMethods));
    }
    Ok(())
}

/// A stored COSE key, parsed. Parsing validates the point (an OpenSSL
/// key built and checked: a quarter of a sign-in's cost), so parsed keys
/// are kept, by their stored text: public data, content-addressed, shared by
/// every engine in the process; at most [`PARSED_KEYS`], dropped all at once
/// when full.
fn stored_key(encoded: &str) -> Result<COSEKey, WebAuthnError> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, COSEKey>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(key) = cache.lock().ok().and_then(|c| c.get(encoded).cloned()) {
        return Ok(key);
    }
    let key = STANDARD
        .decode(encoded)
        .map_err(|e| WebAuthnError::StoredKey(e.to_string()))
        .and_then(|bytes| serde_cbor_2::from_slice::<Cbor>(&bytes).map_err(|e| WebAuthnError::StoredKey(e.to_string())))
        .and_then(|cbor| COSEKey::try_from(&cbor).map_err(|e| WebAuthnError::StoredKey(format!("{e:?}"))))?;
    if let Ok(mut cache) = cache.lock() {
        if cache.len() >= PARSED_KEYS {
            cache.clear();
        }
        cache.insert(encoded.to_owned(), key.clone());
    }
    Ok(key)
}

/// How many parsed passkey public keys a process keeps.
const PARSED_KEYS: usize = 4096;

/// Auth.js's `transports` column ("internal,hybrid") as the options want it.
fn parse_transports(joined: &str) -> Vec<webauthn_rs_core::proto::AuthenticatorTransport> {
    joined
        .split(',')
        .filter_map(|t| serde_json::from_value(serde_json::Value::String(t.trim().to_owned())).ok())
        .filter(|t| !matches!(t, webauthn_rs_core::proto::AuthenticatorTransport::Unknown))
        .collect()
}

/// A COSE public key as CBOR bytes (RFC 9053), the form Auth.js stores in
/// `credentialPublicKey` and reads back with any COSE decoder.
pub fn encode_cose_key(key: &COSEKey) -> Result<Vec<u8>, WebAuthnError> {
    let int = |i: i64| Cbor::Integer(i.into());
    let mut map = BTreeMap::new();
    map.insert(int(3), int(key.type_ as i64));
    match &key.key {
        COSEKeyType::EC_EC2(ec) => {
            let curve = match ec.curve {
                ECDSACurve::SECP256R1 => 1,
                ECDSACurve::SECP384R1 => 2,
                ECDSACurve::SECP521R1 => 3,
            };
            map.insert(int(1), int(2));
            map.insert(int(-1), int(curve));
            map.insert(int(-2), Cbor::Bytes(ec.x.to_vec()));
            map.insert(int(-3), Cbor::Bytes(ec.y.to_vec()));
        }
        COSEKeyType::EC_OKP(okp) => {
            let curve = match okp.curve {
                EDDSACurve::ED25519 => 6,
                EDDSACurve::ED448 => 7,
            };
            map.insert(int(1), int(1));
            map.insert(int(-1), int(curve));
            map.insert(int(-2), Cbor::Bytes(okp.x.to_vec()));
        }
        COSEKeyType::RSA(rsa) => {
            map.insert(int(1), int(3));
            map.insert(int(-1), Cbor::Bytes(rsa.n.to_vec()));
            map.insert(int(-2), Cbor::Bytes(rsa.e.to_vec()));
        }
    }
    serde_cbor_2::to_vec(&Cbor::Map(map)).map_err(|e| WebAuthnError::StoredKey(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_round_trip() {
        for a in [Action::Register, Action::Authenticate] {
            assert_eq!(Action::parse(a.as_str()), Some(a));
        }
        assert_eq!(Action::parse("Register"), None);
    }

    #[test]
    fn transports_parse_and_skip_unknown() {
        assert_eq!(parse_transports("internal, hybrid,carrier-pigeon").len(), 2);
        assert!(parse_transports("").is_empty());
    }
}
