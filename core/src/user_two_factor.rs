//! A user's second factor: turning a TOTP authenticator on (enrolment and
//! its first code), checking a code or a recovery code, new recovery codes,
//! turning it off. From host code ([`Auth::begin_totp`] and the methods
//! beside it; one entry point for the bindings in [`Auth::two_factor`]).
//!
//! Where it is kept: an account row of the user's, under the reserved
//! provider id [`TOTP_ACCOUNT`] (as the password provider keeps its hash),
//! so every adapter that keeps accounts keeps it, with no schema change:
//! the secret sealed ([`SecretBox`]: AES-256-GCM, a key derived from the
//! auth secret, the user's id bound in), when it was turned on, the last
//! time step a code was accepted for, and the keyed hashes of the unused
//! recovery codes. No configured provider can have that id, so the row is
//! never a way to sign in.
//!
//! A code is accepted once: the step it matched is taken as a lease
//! (`totp-step:<user>:<step>`, atomic in every built-in store, across
//! processes) before it counts, and stored as the last step used, so a
//! replay (even a concurrent one) and any older code are refused. Every
//! change of the row happens under the user's lock (another lease), so a
//! recovery code is found and deleted in one step.
//!
//! The second step at sign-in is `routes::two_factor`; turning the factor
//! on and off from the built-in account page is `routes::two_factor_setup`.
//! Host code calls the methods here directly, e.g. for a step-up check
//! before a sensitive action.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::error::{AuthError, ConfigError, ErrorType};
use crate::host::Hook;
use crate::routes::FirstFactor;
use crate::store::{AccountType, AdapterAccount, DataStores};
use crate::time::{iso_millis, now_millis, now_seconds};
use crate::two_factor::{RecoveryCodes, SecretBox, TotpAlgorithm, TotpProfile};
use crate::Auth;

/// The provider id of the account row that holds a user's TOTP factor.
/// Reserved: a configured provider with this id is refused.
pub const TOTP_ACCOUNT: &str = "libauth-totp";

const SECRET: &str = "secret";
const ENABLED_AT: &str = "enabledAt";
const LAST_STEP: &str = "lastStep";
const RECOVERY: &str = "recoveryCodes";

/// `twoFactor` after validation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TwoFactorSettings {
    /// The name authenticator apps show (`twoFactor.issuer`); else the
    /// host of `AUTH_URL`, else `libauth`.
    pub issuer: Option<String>,
    pub totp: TotpProfile,
    /// After which first factors a user with a second factor is asked for
    /// it (`twoFactor.signIn`).
    pub sign_in: SecondStepAfter,
    /// Whether, and for how long, a browser can be trusted to skip the
    /// second step (`twoFactor.trustedDevice`).
    pub trusted_device: TrustedDevice,
}

/// `twoFactor.trustedDevice`: `{ maxAge }` (seconds, 30 days by default),
/// `true` for the default, `false` to never offer it. A trusted browser
/// skips the second step for its user until `maxAge` passes, their
/// sessions are ended everywhere (or their password changes), or their
/// second factor is turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustedDevice {
    /// Seconds; `None`: off.
    pub max_age: Option<u64>,
}

impl TrustedDevice {
    pub const DEFAULT_MAX_AGE: u64 = 30 * 24 * 60 * 60;

    fn parse(value: &Value) -> Result<TrustedDevice, ConfigError> {
        const OPTION: &str = "twoFactor.trustedDevice";
        match value {
            Value::Bool(false) => Ok(TrustedDevice { max_age: None }),
            Value::Bool(true) => Ok(TrustedDevice::default()),
            Value::Object(map) => {
                let mut device = TrustedDevice::default();
                for (key, value) in map {
                    if key != "maxAge" {
                        return Err(ConfigError::new(format!("{OPTION}.{key}"), "unknown option: use maxAge"));
                    }
                    let seconds = value.as_u64().filter(|s| (60..=365 * 24 * 60 * 60).contains(s));
                    device.max_age = Some(seconds.ok_or_else(|| {
                        ConfigError::new(format!("{OPTION}.maxAge"), "must be seconds, from 60 to a year")
                    })?);
                }
                Ok(device)
            }
            _ => Err(ConfigError::new(OPTION, "must be { maxAge }, true or false")),
        }
    }
}

impl Default for TrustedDevice {
    fn default() -> Self {
        TrustedDevice { max_age: Some(TrustedDevice::DEFAULT_MAX_AGE) }
    }
}

/// `twoFactor.signIn`: the first factors after which the second step is
/// asked for (all by default). A passkey whose provider requires user
/// verification is both factors and is never asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecondStepAfter {
    names: [bool; FIRST_FACTORS.len()],
}

/// The names `twoFactor.signIn` takes.
const FIRST_FACTORS: [&str; 5] = ["password", "credentials", "oauth", "email", "passkey"];

impl Default for SecondStepAfter {
    fn default() -> Self {
        SecondStepAfter { names: [true; FIRST_FACTORS.len()] }
    }
}

impl SecondStepAfter {
    fn parse(value: &Value) -> Result<SecondStepAfter, ConfigError> {
        const OPTION: &str = "twoFactor.signIn";
        let list = value.as_array().ok_or_else(|| {
            ConfigError::new(OPTION, format!("must be a list of first factors: {}", FIRST_FACTORS.join(", ")))
        })?;
        let mut names = [false; FIRST_FACTORS.len()];
        for (i, item) in list.iter().enumerate() {
            let index = item.as_str().and_then(|n| FIRST_FACTORS.iter().position(|f| *f == n)).ok_or_else(|| {
                ConfigError::new(format!("{OPTION}[{i}]"), format!("must be one of {}", FIRST_FACTORS.join(", ")))
            })?;
            names[index] = true;
        }
        Ok(SecondStepAfter { names })
    }

    fn asks_after(self, first: FirstFactor) -> bool {
        first != FirstFactor::VerifiedPasskey
            && FIRST_FACTORS.iter().position(|f| *f == first.name()).is_some_and(|i| self.names[i])
    }
}

impl TwoFactorSettings {
    /// `twoFactor`: absent, or `{ issuer?, totp?: { algorithm?, digits?,
    /// period? }, signIn?, trustedDevice? }` (`SHA1`, 6, 30 by default:
    /// what authenticator apps expect).
    pub fn parse(value: Option<&Value>) -> Result<TwoFactorSettings, ConfigError> {
        let map = match value {
            None | Some(Value::Null) => return Ok(TwoFactorSettings::default()),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(ConfigError::new("twoFactor", "must be { issuer, totp, signIn, trustedDevice }")),
        };
        let mut settings = TwoFactorSettings::default();
        for (key, value) in map {
            match key.as_str() {
                "issuer" => {
                    let issuer = value.as_str().map(str::trim).filter(|s| !s.is_empty() && !s.contains(':'));
                    settings.issuer = Some(
                        issuer
                            .ok_or_else(|| ConfigError::new("twoFactor.issuer", "must be a name without a `:`"))?
                            .to_owned(),
                    );
                }
                "totp" => settings.totp = parse_totp(value)?,
                "signIn" => settings.sign_in = SecondStepAfter::parse(value)?,
                "trustedDevice" => settings.trusted_device = TrustedDevice::parse(value)?,
                _ => {
                    return Err(ConfigError::new(
                        format!("twoFactor.{key}"),
                        "unknown option: use issuer, totp, signIn or trustedDevice",
                    ))
                }
            }
        }
        Ok(settings)
    }
}

fn parse_totp(value: &Value) -> Result<TotpProfile, ConfigError> {
    let map =
        value.as_object().ok_or_else(|| ConfigError::new("twoFactor.totp", "must be { algorithm, digits, period }"))?;
    let (mut algorithm, mut digits, mut period) = (TotpAlgorithm::Sha1, 6, 30);
    for (key, value) in map {
        let option = format!("twoFactor.totp.{key}");
        match key.as_str() {
            "algorithm" => {
                algorithm = value
                    .as_str()
                    .and_then(TotpAlgorithm::parse)
                    .ok_or_else(|| ConfigError::new(option, "must be SHA1, SHA256 or SHA512"))?;
            }
            "digits" => digits = value.as_u64().map_or(0, |d| d.min(usize::MAX as u64) as usize),
            "period" => period = value.as_u64().unwrap_or(0),
            _ => return Err(ConfigError::new(option, "unknown option: use algorithm, digits or period")),
        }
    }
    TotpProfile::new(algorithm, digits, period)
}

/// How a second factor was proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactor {
    /// A code from the authenticator.
    Totp,
    /// One of the recovery codes (now used up).
    RecoveryCode,
}

impl SecondFactor {
    fn as_str(self) -> &'static str {
        match self {
            SecondFactor::Totp => "totp",
            SecondFactor::RecoveryCode => "recoveryCode",
        }
    }
}

/// A user's TOTP factor as its account row holds it.
struct Factor {
    account: AdapterAccount,
    secret: Vec<u8>,
    enabled_at: Option<i64>,
    last_step: Option<u64>,
    recovery: Vec<String>,
}

impl Factor {
    fn write(&mut self, sealed: Option<String>) {
        let extra = &mut self.account.extra;
        if let Some(sealed) = sealed {
            extra.insert(SECRET.into(), Value::String(sealed));
        }
        extra.insert(ENABLED_AT.into(), self.enabled_at.map_or(Value::Null, Value::from));
        extra.insert(LAST_STEP.into(), self.last_step.map_or(Value::Null, Value::from));
        extra.insert(RECOVERY.into(), Value::from(self.recovery.clone()));
    }
}

fn refused(message: &str) -> AuthError {
    AuthError::new(ErrorType::TwoFactorError, message)
}

impl Auth {
    /// Start turning TOTP on for `user_id`, shown in the app as `label`
    /// (their address): a new secret, its `otpauth://` URI and that URI's
    /// QR code (SVG), as `{ uri, secret, qrSvg }`. Nothing is on until
    /// [`Auth::confirm_totp`] gets a code made from it; starting again
    /// replaces a pending secret. Refused (`TwoFactorError`) while TOTP is
    /// on: turn it off first.
    pub fn begin_totp(&self, user_id: &str, label: &str) -> Result<Value, AuthError> {
        let db = self.two_factor_stores()?;
        self.locked(user_id, || self.begin_totp_locked(db, user_id, label))
    }

    fn begin_totp_locked(&self, db: &DataStores, user_id: &str, label: &str) -> Result<Value, AuthError> {
        let existing = self.factor(db, user_id)?;
        if existing.as_ref().is_some_and(|f| f.enabled_at.is_some()) {
            return Err(refused("a second factor is on already: turn it off first"));
        }
        let issuer = self.totp_issuer();
        let enrolment = self
            .settings
            .two_factor
            .totp
            .enrol(&issuer, app_label(label, user_id))
            .ok_or_else(|| refused("the account label cannot hold a `:`"))?;
        let sealed = SecretBox::new(&self.settings.secrets)
            .seal(user_id, &enrolment.secret)
            .map_err(|e| AuthError::new(ErrorType::TwoFactorError, e.to_string()))?;
        let is_new = existing.is_none();
        let mut factor = match existing {
            Some(f) => f,
            None => {
                let mut account = AdapterAccount::new(AccountType::Credentials, TOTP_ACCOUNT, user_id);
                account.user_id = user_id.to_owned();
                Factor { account, secret: Vec::new(), enabled_at: None, last_step: None, recovery: Vec::new() }
            }
        };
        factor.enabled_at = None;
        factor.last_step = None;
        factor.recovery.clear();
        factor.write(Some(sealed));
        if is_new {
            db.accounts.link_account(&factor.account)?;
        } else {
            db.accounts.update_account(&factor.account)?;
        }
        Ok(enrolment_json(&enrolment))
    }

    /// Turn TOTP on with the first code from the app (the secret
    /// [`Auth::begin_totp`] gave): the ten recovery codes, to show once.
    /// `TwoFactorError` for a wrong code or no enrolment under way.
    pub fn confirm_totp(&self, user_id: &str, code: &str) -> Result<Vec<String>, AuthError> {
        let db = self.two_factor_stores()?;
        let codes = self.locked(user_id, || self.confirm_totp_locked(db, user_id, code))?;
        self.callbacks.event(&Hook::EVENT_TWO_FACTOR_ENABLED, || json!({ "userId": user_id }));
        Ok(codes)
    }

    fn confirm_totp_locked(&self, db: &DataStores, user_id: &str, code: &str) -> Result<Vec<String>, AuthError> {
        let mut factor = self.factor(db, user_id)?.ok_or_else(|| refused("no enrolment is under way"))?;
        if factor.enabled_at.is_some() {
            return Err(refused("a second factor is on already"));
        }
        let step = self.take_totp_step(&factor, user_id, code)?.ok_or_else(|| refused("the code is not right"))?;
        let codes = RecoveryCodes::generate(user_id, &self.settings.secrets[0])
            .ok_or_else(|| AuthError::new(ErrorType::TwoFactorError, "no randomness for recovery codes"))?;
        factor.enabled_at = Some(now_millis() as i64);
        factor.last_step = Some(step);
        factor.recovery = codes.hashes;
        factor.write(None);
        db.accounts.update_account(&factor.account)?;
        Ok(codes.codes)
    }

    /// Check a second factor of `user_id`'s: a code from the app, or one of
    /// the recovery codes (used up by this call). Each is accepted once.
    /// `TwoFactorError` when it is neither, or TOTP is not on.
    pub fn verify_second_factor(&self, user_id: &str, code: &str) -> Result<SecondFactor, AuthError> {
        let db = self.two_factor_stores()?;
        let (factor, left) = self.locked(user_id, || self.verify_locked(db, user_id, code))?;
        if factor == SecondFactor::RecoveryCode {
            self.callbacks.event(&Hook::EVENT_RECOVERY_CODE_USED, || json!({ "userId": user_id, "left": left }));
        }
        Ok(factor)
    }

    /// The factor `code` proved, and how many recovery codes are left.
    fn verify_locked(&self, db: &DataStores, user_id: &str, code: &str) -> Result<(SecondFactor, usize), AuthError> {
        let mut factor = self
            .factor(db, user_id)?
            .filter(|f| f.enabled_at.is_some())
            .ok_or_else(|| refused("no second factor is on"))?;
        if let Some(step) = self.take_totp_step(&factor, user_id, code)? {
            factor.last_step = Some(step);
            factor.write(None);
            db.accounts.update_account(&factor.account)?;
            return Ok((SecondFactor::Totp, factor.recovery.len()));
        }
        // Under the user's lock: found and deleted with no other request
        // between, so a recovery code works once.
        let Some(index) = RecoveryCodes::find(&factor.recovery, user_id, code, &self.settings.secrets) else {
            return Err(refused("the code is not right"));
        };
        factor.recovery.remove(index);
        factor.write(None);
        db.accounts.update_account(&factor.account)?;
        Ok((SecondFactor::RecoveryCode, factor.recovery.len()))
    }

    /// New recovery codes for `user_id`, replacing the unused ones, after a
    /// second factor (`code`): the ten codes, to show once.
    pub fn regenerate_recovery_codes(&self, user_id: &str, code: &str) -> Result<Vec<String>, AuthError> {
        self.verify_second_factor(user_id, code)?;
        let db = self.two_factor_stores()?;
        self.locked(user_id, || {
            let mut factor = self.factor(db, user_id)?.ok_or_else(|| refused("no second factor is on"))?;
            let codes = RecoveryCodes::generate(user_id, &self.settings.secrets[0])
                .ok_or_else(|| AuthError::new(ErrorType::TwoFactorError, "no randomness for recovery codes"))?;
            factor.recovery = codes.hashes;
            factor.write(None);
            db.accounts.update_account(&factor.account)?;
            Ok(codes.codes)
        })
    }

    /// Turn TOTP off for `user_id` after a second factor (`code`: a code
    /// from the app or a recovery code); a pending enrolment is dropped
    /// without one.
    pub fn disable_totp(&self, user_id: &str, code: &str) -> Result<(), AuthError> {
        let db = self.two_factor_stores()?;
        let factor = self.factor(db, user_id)?.ok_or_else(|| refused("no second factor is on"))?;
        if factor.enabled_at.is_some() {
            self.verify_second_factor(user_id, code)?;
        }
        self.remove_factor(db, user_id, &factor)
    }

    /// Delete `user_id`'s factor row (`twoFactorDisabled` when it was on).
    fn remove_factor(&self, db: &DataStores, user_id: &str, factor: &Factor) -> Result<(), AuthError> {
        db.accounts.unlink_account(TOTP_ACCOUNT, user_id)?;
        if factor.enabled_at.is_some() {
            self.callbacks.event(&Hook::EVENT_TWO_FACTOR_DISABLED, || json!({ "userId": user_id }));
        }
        Ok(())
    }

    /// The enrolment under way for `user_id` (begun, not yet confirmed),
    /// shown again as [`Auth::begin_totp`] gave it; `None` without one.
    pub(crate) fn pending_totp(&self, user_id: &str, label: &str) -> Result<Option<Value>, AuthError> {
        let db = self.two_factor_stores()?;
        let Some(factor) = self.factor(db, user_id)?.filter(|f| f.enabled_at.is_none()) else {
            return Ok(None);
        };
        let issuer = self.totp_issuer();
        let enrolment = self.settings.two_factor.totp.enrolment_for(factor.secret, &issuer, app_label(label, user_id));
        Ok(enrolment.as_ref().map(enrolment_json))
    }

    /// Turn TOTP off for `user_id` whose password was just checked (the
    /// account page accepts it instead of a code).
    pub(crate) fn disable_totp_after_password(&self, user_id: &str) -> Result<(), AuthError> {
        let db = self.two_factor_stores()?;
        let Some(factor) = self.factor(db, user_id)? else { return Ok(()) };
        self.remove_factor(db, user_id, &factor)
    }

    /// `{ enabled, pending, enabledAt, recoveryCodesLeft }` for `user_id`.
    pub fn two_factor_status(&self, user_id: &str) -> Result<Value, AuthError> {
        let db = self.two_factor_stores()?;
        let factor = self.factor(db, user_id)?;
        let enabled_at = factor.as_ref().and_then(|f| f.enabled_at);
        Ok(json!({
            "enabled": enabled_at.is_some(),
            "pending": factor.is_some() && enabled_at.is_none(),
            "enabledAt": enabled_at.map(|t| iso_millis(t.max(0) as u64)),
            "recoveryCodesLeft": factor.filter(|f| f.enabled_at.is_some()).map_or(0, |f| f.recovery.len()),
        }))
    }

    /// The two-factor calls as one entry point for the bindings: `call` is
    /// `{ "action": "status" }`, `{ "action": "begin", "label"? }`,
    /// `{ "action": "confirm", "code" }`, `{ "action": "verify", "code" }`,
    /// `{ "action": "recoveryCodes", "code" }` or `{ "action": "disable",
    /// "code"? }`. The answer is the status, the enrolment, `{
    /// recoveryCodes }`, `{ "factor": "totp" | "recoveryCode" }` or `null`.
    pub fn two_factor(&self, user_id: &str, call: &Value) -> Result<Value, AuthError> {
        let text = |key: &str| call.get(key).and_then(Value::as_str).unwrap_or_default();
        match text("action") {
            "status" => self.two_factor_status(user_id),
            "begin" => self.begin_totp(user_id, text("label")),
            "confirm" => Ok(json!({ "recoveryCodes": self.confirm_totp(user_id, text("code"))? })),
            "verify" => Ok(json!({ "factor": self.verify_second_factor(user_id, text("code"))?.as_str() })),
            "recoveryCodes" => Ok(json!({ "recoveryCodes": self.regenerate_recovery_codes(user_id, text("code"))? })),
            "disable" => self.disable_totp(user_id, text("code")).map(|()| Value::Null),
            _ => Err(AuthError::new(
                ErrorType::UnknownAction,
                "a two-factor call is status, begin, confirm, verify, recoveryCodes or disable",
            )),
        }
    }

    /// Whether a sign-in of `user_id` by `first` must pass the second step
    /// before its session: when the user's TOTP was turned on (unix ms),
    /// if it is on and `twoFactor.signIn` names `first`. An adapter that
    /// cannot read accounts (a host adapter without `getUserAccount`)
    /// keeps no second factor: never. A store that fails fails the
    /// sign-in (never a session without the check).
    pub(crate) fn second_step_due(
        &self,
        db: &DataStores,
        first: FirstFactor,
        user_id: &str,
    ) -> Result<Option<i64>, AuthError> {
        if !self.settings.two_factor.sign_in.asks_after(first) {
            return Ok(None);
        }
        totp_enabled_at(db, user_id)
    }

    /// The step `code` matched for `factor`, taken so no other request
    /// (in any process sharing the store) accepts it too; `None` for a
    /// wrong, stale or replayed code.
    fn take_totp_step(&self, factor: &Factor, user_id: &str, code: &str) -> Result<Option<u64>, AuthError> {
        let profile = &self.settings.two_factor.totp;
        let Some(step) = profile.verify(&factor.secret, code, now_seconds(), factor.last_step) else {
            return Ok(None);
        };
        // Held past the three steps a code can be accepted in.
        let ttl = Duration::from_secs(profile.period().saturating_mul(4));
        let taken = self.stores.leases.take_lease(&format!("totp-step:{user_id}:{step}"), ttl)?;
        Ok(taken.then_some(step))
    }

    /// Run `f` holding `user_id`'s two-factor lock (a lease every process
    /// sharing the store respects), so reading the row, changing it and
    /// writing it back is one step: no two requests both use one recovery
    /// code, and no write loses another's.
    fn locked<T>(&self, user_id: &str, f: impl FnOnce() -> Result<T, AuthError>) -> Result<T, AuthError> {
        let name = format!("two-factor:{user_id}");
        let deadline = Instant::now() + Duration::from_secs(2);
        while !self.stores.leases.take_lease(&name, Duration::from_secs(10))? {
            if Instant::now() >= deadline {
                return Err(refused("another change of this second factor is under way: try again"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let result = f();
        if let Err(e) = self.stores.leases.release_lease(&name) {
            // It frees itself after ten seconds.
            self.callbacks.log(&AuthError::from(e));
        }
        result
    }

    /// `user_id`'s factor, its secret opened; `None` without one.
    fn factor(&self, db: &DataStores, user_id: &str) -> Result<Option<Factor>, AuthError> {
        let Some(account) = db.accounts.get_account(user_id, TOTP_ACCOUNT)? else {
            return Ok(None);
        };
        let extra = &account.extra;
        let sealed = extra.get(SECRET).and_then(Value::as_str).unwrap_or_default();
        let secret = SecretBox::new(&self.settings.secrets).open(user_id, sealed).map_err(|e| {
            AuthError::new(ErrorType::TwoFactorError, format!("the stored second factor cannot be opened: {e}"))
        })?;
        let enabled_at = extra.get(ENABLED_AT).and_then(Value::as_i64);
        let last_step = extra.get(LAST_STEP).and_then(Value::as_u64);
        let recovery = extra
            .get(RECOVERY)
            .and_then(Value::as_array)
            .map(|codes| codes.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        Ok(Some(Factor { account, secret, enabled_at, last_step, recovery }))
    }

    fn totp_issuer(&self) -> String {
        self.settings
            .two_factor
            .issuer
            .clone()
            .or_else(|| self.settings.canonical_url.as_ref().and_then(|u| u.host_str()).map(str::to_owned))
            .unwrap_or_else(|| "libauth".to_owned())
    }

    fn two_factor_stores(&self) -> Result<&DataStores, AuthError> {
        self.stores
            .data()
            .ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "a second factor is kept by an adapter"))
    }
}

/// When `user_id`'s TOTP was turned on (unix ms); `None` while it is off.
pub(crate) fn totp_enabled_at(db: &DataStores, user_id: &str) -> Result<Option<i64>, AuthError> {
    if !db.supports("getUserAccount") {
        return Ok(None);
    }
    let account = db.accounts.get_account(user_id, TOTP_ACCOUNT)?;
    Ok(account.and_then(|a| a.extra.get(ENABLED_AT).and_then(Value::as_i64)))
}

/// The name authenticator apps show for the account: `label` (the user's
/// address), else the user's id.
fn app_label<'a>(label: &'a str, user_id: &'a str) -> &'a str {
    let label = label.trim();
    if label.is_empty() {
        user_id
    } else {
        label
    }
}

/// An enrolment as the calls answer it: `{ uri, secret, qrSvg }`.
fn enrolment_json(enrolment: &crate::two_factor::Enrolment) -> Value {
    json!({ "uri": enrolment.uri, "secret": enrolment.secret_base32, "qrSvg": enrolment.qr_svg })
}
