//! `libauth import authjs|better-auth|django`: another library's users,
//! accounts (password hashes included), passkeys and live database
//! sessions, copied into libauth's schema, so an app switches without
//! logging anyone out. This file holds the Auth.js mapping and the writing
//! every source shares ([`write_once`] and the `write_*` helpers);
//! [`better_auth`] and [`django`] map their own tables onto them.
//!
//! Auth.js and libauth share the session cookie: a browser's
//! `authjs.session-token` names the same session after the import (libauth
//! stores the token's SHA-256, so the tokens are hashed on the way). Rows are written one at a time through libauth's own stores;
//! one that cannot be mapped (a missing column, a session whose user is
//! not there, an email another user already has) is reported and skipped,
//! never half-written. A second run finds everything there and changes
//! nothing. Nothing is merged on an email address: a user is matched by
//! id only.

mod better_auth;
mod django;
mod source;

use std::io::Write;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use libauth_core::store::{
    date, AccountType, AdapterAccount, AdapterSession, Authenticator, NewUser, VerificationToken,
};
use libauth_core::{Adapter, NoHooks};
use serde_json::{json, Map, Value};

use crate::database::{self, Database};
use crate::output::{print_json, write_line, Exit, Failure, Outcome};
use source::Source;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Origin {
    /// Auth.js (NextAuth) adapters' schema: @auth/pg-adapter, Prisma's
    /// default model, @auth/d1-adapter and other SQLite schemas.
    Authjs,
    /// Better Auth's default schema: `user`, `account` (its `credential`
    /// accounts' scrypt hashes), `session`, `verification`, `passkey`.
    BetterAuth,
    /// Django's `django.contrib.auth` (`auth_user`, its password hashes) and
    /// database sessions (`django_session`).
    Django,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// What the database was written by.
    from_kind: Origin,
    /// The database to read: postgres://… or a SQLite file (sqlite:PATH).
    #[arg(long = "from", value_name = "URL")]
    source: String,
    /// The PostgreSQL schema the source's tables are in.
    #[arg(long, value_name = "NAME", default_value = "public")]
    from_schema: String,
    /// libauth's database: postgres://… or sqlite:PATH (migrated first).
    #[arg(long = "to", value_name = "URL")]
    target: String,
    /// The PostgreSQL schema for libauth's tables.
    #[arg(long, value_name = "NAME")]
    to_schema: Option<String>,
    /// Read and map everything, write nothing, print the counts.
    #[arg(long)]
    dry_run: bool,
    /// Report as JSON.
    #[arg(long)]
    json: bool,
    /// better-auth: the app's Better Auth secret, to compute the signed
    /// session cookie each browser holds (else BETTER_AUTH_SECRET; without
    /// it, sessions are skipped). Prefer the variable: a command line is
    /// visible to other local users and kept in shell history.
    #[arg(long, value_name = "SECRET")]
    better_auth_secret: Option<String>,
    /// django: the app's SECRET_KEY, to check each session's signature
    /// (else DJANGO_SECRET_KEY; optional: without it the database is
    /// trusted as it is).
    #[arg(long, value_name = "KEY")]
    django_secret_key: Option<String>,
}

/// The tables an Auth.js adapter may have written, by the names each
/// adapter gives them.
const USERS: &[&str] = &["users", "User", "user"];
const ACCOUNTS: &[&str] = &["accounts", "Account", "account"];
const SESSIONS: &[&str] = &["sessions", "Session", "session"];
const TOKENS: &[&str] = &["verification_token", "verification_tokens", "VerificationToken", "verificationToken"];
const AUTHENTICATORS: &[&str] = &["authenticators", "Authenticator", "authenticator"];

/// What happened to each kind of record.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    written: usize,
    /// Already in libauth's database, the same record.
    present: usize,
    skipped: usize,
}

#[derive(Default)]
struct Outcomes {
    counts: Vec<(&'static str, Counts)>,
    /// One line per skipped row: which, and why.
    skipped: Vec<String>,
    /// What was written but needs the app's attention.
    notes: Vec<String>,
}

impl Outcomes {
    fn count(&mut self, kind: &'static str) -> &mut Counts {
        if let Some(i) = self.counts.iter().position(|(k, _)| *k == kind) {
            return &mut self.counts[i].1;
        }
        self.counts.push((kind, Counts::default()));
        &mut self.counts.last_mut().expect("just pushed").1
    }
    fn skip(&mut self, kind: &'static str, what: String, why: impl std::fmt::Display) {
        self.count(kind).skipped += 1;
        self.skipped.push(format!("{kind} {what}: {why}"));
    }
}

/// Where rows go: libauth's stores, or nowhere (a dry run, which still
/// checks what is already there when the database exists).
struct Target {
    adapter: Option<Arc<dyn Adapter>>,
    dry_run: bool,
}

impl Origin {
    fn name(self) -> &'static str {
        match self {
            Origin::Authjs => "authjs",
            Origin::BetterAuth => "better-auth",
            Origin::Django => "django",
        }
    }
}

/// A secret from its flag, else from its environment variable; empty is none.
fn secret_of(flag: &Option<String>, variable: &str) -> Option<String> {
    flag.clone().or_else(|| std::env::var(variable).ok()).filter(|s| !s.is_empty())
}

pub fn run(args: &ImportArgs, out: &mut dyn Write) -> Outcome {
    // A secret for another source is a mistake, not something to ignore.
    let misplaced = match args.from_kind {
        Origin::BetterAuth => args.django_secret_key.is_some().then_some("--django-secret-key"),
        Origin::Django => args.better_auth_secret.is_some().then_some("--better-auth-secret"),
        Origin::Authjs => {
            [("--better-auth-secret", &args.better_auth_secret), ("--django-secret-key", &args.django_secret_key)]
                .into_iter()
                .find_map(|(flag, v)| v.is_some().then_some(flag))
        }
    };
    if let Some(flag) = misplaced {
        return Err(Failure::Usage(format!("{flag} is not for `import {}`", args.from_kind.name())));
    }
    let target_db = database::from_url(&args.target, args.to_schema.as_deref())?;
    let mut source = Source::open(&args.source, &args.from_schema)?;
    let target = open_target(&target_db, args.dry_run)?;
    let mut outcomes = Outcomes::default();
    let now = libauth_core::time::now_millis() as i64;
    match args.from_kind {
        Origin::Authjs => import_authjs(&mut source, &target, &args.from_schema, now, &mut outcomes)?,
        Origin::BetterAuth => {
            let secret = secret_of(&args.better_auth_secret, "BETTER_AUTH_SECRET");
            better_auth::import(&mut source, &target, &args.from_schema, secret.as_deref(), now, &mut outcomes)?
        }
        Origin::Django => {
            let key = secret_of(&args.django_secret_key, "DJANGO_SECRET_KEY");
            django::import(&mut source, &target, &args.from_schema, key.as_deref(), now, &mut outcomes)?
        }
    }
    report(&target_db, args.dry_run, &outcomes, args.json, out)
}

/// The refusal when none of a source's users tables is there.
fn no_users_table(names: &[&str], schema: &str, what: &str) -> Failure {
    Failure::Failed(format!("--from: no users table ({}) in schema {schema}: is this {what}?", names.join(", ")))
}

fn import_authjs(
    source: &mut Source,
    target: &Target,
    schema: &str,
    now: i64,
    outcomes: &mut Outcomes,
) -> Result<(), Failure> {
    let Some(users_table) = source.find_table(USERS)? else {
        return Err(no_users_table(USERS, schema, "an Auth.js database"));
    };
    let mut imported_users = std::collections::HashSet::new();
    for row in source.rows(&users_table)? {
        if let Some(id) = import_user(target, &row, outcomes) {
            imported_users.insert(id);
        }
    }
    if let Some(table) = source.find_table(ACCOUNTS)? {
        for row in source.rows(&table)? {
            import_account(target, &row, &imported_users, outcomes);
        }
    }
    if let Some(table) = source.find_table(SESSIONS)? {
        for row in source.rows(&table)? {
            import_session(target, &row, &imported_users, now, outcomes);
        }
    }
    if let Some(table) = source.find_table(TOKENS)? {
        for row in source.rows(&table)? {
            import_token(target, &row, now, outcomes);
        }
    }
    if let Some(table) = source.find_table(AUTHENTICATORS)? {
        for row in source.rows(&table)? {
            import_authenticator(target, &row, &imported_users, outcomes);
        }
    }
    Ok(())
}

fn open_target(db: &Database, dry_run: bool) -> Result<Target, Failure> {
    let config = match db {
        // A dry run never creates the file.
        Database::Sqlite(path) if dry_run && !path.exists() => return Ok(Target { adapter: None, dry_run }),
        Database::Sqlite(path) => json!({ "type": "sqlite", "path": path.display().to_string() }),
        Database::Postgres(pg) => json!({ "type": "postgres", "url": pg.url, "schema": pg.schema }),
    };
    let adapter = libauth_core::store::from_config(&config, Arc::new(NoHooks))
        .map_err(|e| Failure::Failed(format!("--to {}: {}", db.describe(), e.message)))?;
    Ok(Target { adapter: Some(adapter), dry_run })
}

/// The first of `names` present and not null in `row`.
fn field<'a>(row: &'a Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|n| row.get(*n)).filter(|v| !v.is_null())
}

/// An id: a string, or a number (serial ids) as its decimal string.
fn id_of(row: &Map<String, Value>, names: &[&str]) -> Option<String> {
    match field(row, names)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn text_of(row: &Map<String, Value>, names: &[&str]) -> Option<String> {
    match field(row, names)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A boolean column: a boolean, a number (SQLite's 0/1), or a string.
fn bool_of(row: &Map<String, Value>, names: &[&str]) -> Option<bool> {
    match field(row, names)? {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => Some(n.as_f64() != Some(0.0)),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "t" | "1" => Some(true),
            "false" | "f" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A date as unix ms: an ISO string (with or without an offset: a
/// `timestamp without time zone` is UTC), or a number of ms or seconds.
fn date_of(row: &Map<String, Value>, names: &[&str]) -> Option<i64> {
    match field(row, names)? {
        Value::String(s) => date::parse_iso(s)
            .or_else(|| date::parse_iso(&format!("{s}Z")))
            .or_else(|| date::parse_iso(&format!("{}Z", s.replacen(' ', "T", 1)))),
        Value::Number(n) => {
            let n = n.as_i64()?;
            // Seconds until the year 5138; ms after 1973.
            Some(if n.abs() < 100_000_000_000 { n * 1000 } else { n })
        }
        _ => None,
    }
}

/// A store call's unique-constraint refusal: the record is already there.
fn already_there(e: &libauth_core::AdapterError) -> bool {
    matches!(e, libauth_core::AdapterError::Constraint { .. })
}

/// What libauth's database already holds for a record being imported.
enum Found {
    /// Nothing: write it.
    Absent,
    /// The same record: nothing to do.
    Same,
    /// Something else in its place: report and skip, with why.
    Conflict(&'static str),
}

/// Write one record unless libauth already has it: `look` says what is
/// there, `write` writes. Without a database (a dry run into a file that
/// does not exist) or in a dry run, it is counted as it would be written.
/// Whether the record is in libauth's database afterwards.
fn write_once(
    target: &Target,
    outcomes: &mut Outcomes,
    kind: &'static str,
    what: String,
    look: impl FnOnce(&dyn Adapter) -> Result<Found, libauth_core::AdapterError>,
    write: impl FnOnce(&dyn Adapter) -> Result<(), libauth_core::AdapterError>,
) -> bool {
    let Some(adapter) = target.adapter.as_deref() else {
        outcomes.count(kind).written += 1;
        return true;
    };
    match look(adapter) {
        Ok(Found::Absent) => {}
        Ok(Found::Same) => {
            outcomes.count(kind).present += 1;
            return true;
        }
        Ok(Found::Conflict(why)) => {
            outcomes.skip(kind, what, why);
            return false;
        }
        Err(e) => {
            outcomes.skip(kind, what, e);
            return false;
        }
    }
    if target.dry_run {
        outcomes.count(kind).written += 1;
        return true;
    }
    match write(adapter) {
        Ok(()) => {
            outcomes.count(kind).written += 1;
            true
        }
        // A unique key refused it: another process, or an earlier run, wrote it.
        Err(e) if already_there(&e) => {
            outcomes.count(kind).present += 1;
            true
        }
        Err(e) => {
            outcomes.skip(kind, what, e);
            false
        }
    }
}

fn import_user(target: &Target, row: &Map<String, Value>, outcomes: &mut Outcomes) -> Option<String> {
    const KIND: &str = "users";
    let Some(id) = id_of(row, &["id"]) else {
        outcomes.skip(KIND, "(no id)".into(), "a user without an id");
        return None;
    };
    let email = text_of(row, &["email"]);
    let user = NewUser {
        id: Some(id.clone()),
        name: text_of(row, &["name"]),
        email: email.clone(),
        email_verified: date_of(row, &["emailVerified", "email_verified"]),
        image: text_of(row, &["image"]),
        // Auth.js's schema keeps no locale (libauth's has one from schema
        // version 4): the imported user has none.
        locale: None,
    };
    write_user(target, outcomes, &user)
}

/// Write a user (its id set) unless libauth has it: the same id and email
/// is the same user; the same id with another email, or another user with
/// this email, is a conflict. Its id when the user is in libauth's
/// database afterwards.
fn write_user(target: &Target, outcomes: &mut Outcomes, user: &NewUser) -> Option<String> {
    const KIND: &str = "users";
    let id = user.id.clone()?;
    let email = &user.email;
    let look = |adapter: &dyn Adapter| {
        Ok(match adapter.get_user(&id)? {
            Some(existing) if existing.email == *email => Found::Same,
            Some(_) => Found::Conflict("libauth already has a user with this id and another email"),
            // Never merged on an email: another user with this address is
            // a conflict for a person to resolve, not the same account.
            None => match email {
                Some(email) if adapter.get_user_by_email(email)?.is_some() => {
                    Found::Conflict("another libauth user has this email; not merged")
                }
                _ => Found::Absent,
            },
        })
    };
    let write = |adapter: &dyn Adapter| adapter.create_user(user).map(drop);
    write_once(target, outcomes, KIND, id.clone(), look, write).then_some(id)
}

/// The provider id of libauth's email + password accounts.
const PASSWORD_PROVIDER: &str = "password";

/// libauth's email + password account of `user_id`: a `credentials`
/// account of provider `password` whose provider account id is the user's
/// id, the hash (as the other library stored it) in `password`.
fn password_account(user_id: &str, hash: String) -> AdapterAccount {
    let mut account = AdapterAccount::new(AccountType::Credentials, PASSWORD_PROVIDER, user_id);
    account.user_id = user_id.to_owned();
    account.extra.insert("password".into(), Value::String(hash));
    account
}

/// Whether `libauth_core::password` verifies a hash of this form (the
/// shapes of the formats it lists; the hash's own parameters are checked
/// when a password is verified): Argon2 PHC strings, bcrypt, Django's
/// `pbkdf2_sha256`, Better Auth's scrypt `<hex salt>:<128 hex digits>`.
fn libauth_verifies(hash: &str) -> bool {
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    ["$argon2id$", "$argon2i$", "$argon2d$", "$2a$", "$2b$", "$2y$", "pbkdf2_sha256$"]
        .iter()
        .any(|p| hash.starts_with(p))
        || hash.split_once(':').is_some_and(|(salt, key)| hex(salt) && key.len() == 128 && hex(key))
}

/// The Argon2 memory (KiB) a stored Argon2 hash asks for, when it is more
/// than libauth accepts by default (see `MIN_IMPORTED_ARGON2_MEMORY_CAP_KIB`).
fn argon2_memory_over_default(hash: &str) -> Option<u32> {
    const DEFAULT_CAP_KIB: u32 = libauth_core::password::MIN_IMPORTED_ARGON2_MEMORY_CAP_KIB;
    let params = hash.strip_prefix("$argon2")?.split('$').find(|p| p.starts_with("m="))?;
    let m: u32 = params.split(',').next()?.strip_prefix("m=")?.parse().ok()?;
    (m > DEFAULT_CAP_KIB).then_some(m)
}

/// Write `user_id`'s password account with `hash` (one libauth verifies).
fn write_password(target: &Target, outcomes: &mut Outcomes, what: String, user_id: &str, hash: String) {
    if let Some(m) = argon2_memory_over_default(&hash) {
        outcomes.notes.push(format!(
            "accounts {what}: an Argon2 hash with m={m} KiB; libauth verifies it once password.argon2.memoryKib is at least {m}"
        ));
    }
    write_account(target, outcomes, "accounts", what, &password_account(user_id, hash));
}

/// Link an account unless it is linked already (to its user: the same; to
/// another: a conflict). Whether it is linked afterwards.
fn write_account(
    target: &Target,
    outcomes: &mut Outcomes,
    kind: &'static str,
    what: String,
    account: &AdapterAccount,
) -> bool {
    let look = |adapter: &dyn Adapter| {
        Ok(match adapter.get_user_by_account(&account.provider, &account.provider_account_id)? {
            Some(owner) if owner.id == account.user_id => Found::Same,
            Some(_) => Found::Conflict("already linked to another libauth user"),
            None => Found::Absent,
        })
    };
    write_once(target, outcomes, kind, what, look, |adapter| adapter.link_account(account))
}

/// Create a database session (its token already hashed) unless it is there.
fn write_session(target: &Target, outcomes: &mut Outcomes, what: String, session: &AdapterSession) {
    let look = |adapter: &dyn Adapter| {
        Ok(if adapter.get_session(&session.session_token)?.is_some() { Found::Same } else { Found::Absent })
    };
    write_once(target, outcomes, "sessions", what, look, |adapter| adapter.create_session(session).map(drop));
}

fn import_account(
    target: &Target,
    row: &Map<String, Value>,
    users: &std::collections::HashSet<String>,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "accounts";
    let provider = text_of(row, &["provider", "providerId", "provider_id"]);
    let provider_account_id = text_of(row, &["providerAccountId", "provider_account_id"]);
    let (Some(provider), Some(provider_account_id)) = (provider, provider_account_id) else {
        return outcomes.skip(KIND, "(unnamed)".into(), "no provider or providerAccountId");
    };
    let what = format!("{provider}/{provider_account_id}");
    let Some(user_id) = id_of(row, &["userId", "user_id"]).filter(|u| users.contains(u)) else {
        return outcomes.skip(KIND, what, "its user was not imported");
    };
    let mut account = json!({
        "userId": user_id,
        "type": text_of(row, &["type"]).unwrap_or_else(|| "oauth".into()),
        "provider": provider,
        "providerAccountId": provider_account_id,
    });
    for (key, names) in [
        ("access_token", &["access_token", "accessToken"][..]),
        ("refresh_token", &["refresh_token", "refreshToken"]),
        ("token_type", &["token_type", "tokenType"]),
        ("scope", &["scope"]),
        ("id_token", &["id_token", "idToken"]),
        ("session_state", &["session_state", "sessionState"]),
    ] {
        if let Some(v) = text_of(row, names) {
            account[key] = Value::String(v);
        }
    }
    // Auth.js's expires_at is unix seconds.
    if let Some(ms) = date_of(row, &["expires_at", "expiresAt"]) {
        account["expires_at"] = json!(ms / 1000);
    }
    let account: AdapterAccount = match serde_json::from_value(account) {
        Ok(a) => a,
        Err(e) => return outcomes.skip(KIND, what, e),
    };
    write_account(target, outcomes, KIND, what, &account);
}

fn import_session(
    target: &Target,
    row: &Map<String, Value>,
    users: &std::collections::HashSet<String>,
    now: i64,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "sessions";
    let Some(token) = text_of(row, &["sessionToken", "session_token"]) else {
        return outcomes.skip(KIND, "(no token)".into(), "a session without a token");
    };
    // The token is the browser's credential: never printed.
    let what = format!("#{}", id_of(row, &["id"]).unwrap_or_else(|| "?".into()));
    let Some(expires) = date_of(row, &["expires", "expiresAt"]) else {
        return outcomes.skip(KIND, what, "no readable expiry");
    };
    if expires <= now {
        outcomes.count(KIND).skipped += 1;
        return;
    }
    let Some(user_id) = id_of(row, &["userId", "user_id"]).filter(|u| users.contains(u)) else {
        return outcomes.skip(KIND, what, "its user was not imported");
    };
    // libauth keeps a session token's SHA-256, never the token itself: a
    // leaked database holds no usable cookie. The browser's cookie still
    // carries the token, which hashes to this.
    let session =
        AdapterSession { session_token: libauth_core::session::stored_session_token(&token), user_id, expires };
    write_session(target, outcomes, what, &session);
}

fn import_token(target: &Target, row: &Map<String, Value>, now: i64, outcomes: &mut Outcomes) {
    const KIND: &str = "verification tokens";
    let (Some(identifier), Some(token), Some(expires)) =
        (text_of(row, &["identifier"]), text_of(row, &["token"]), date_of(row, &["expires"]))
    else {
        return outcomes.skip(KIND, "(incomplete)".into(), "no identifier, token or expiry");
    };
    if expires <= now {
        outcomes.count(KIND).skipped += 1;
        return;
    }
    // Stored hashed, as Auth.js stores them (both hash the emailed token
    // with the secret), so a link mailed before the switch still works.
    // Using a token is the only way to read one: a second run learns it
    // is there from the unique key.
    let token = VerificationToken { identifier, token, expires };
    let look = |_: &dyn Adapter| Ok(Found::Absent);
    write_once(target, outcomes, KIND, "(a link)".into(), look, |adapter| adapter.create_verification_token(&token));
}

fn import_authenticator(
    target: &Target,
    row: &Map<String, Value>,
    users: &std::collections::HashSet<String>,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "passkeys";
    let Some(credential_id) = text_of(row, &["credentialID", "credentialId", "credential_id"]) else {
        return outcomes.skip(KIND, "(no id)".into(), "no credentialID");
    };
    let Some(user_id) = id_of(row, &["userId", "user_id"]).filter(|u| users.contains(u)) else {
        return outcomes.skip(KIND, credential_id, "its user was not imported");
    };
    let backed_up = match field(row, &["credentialBackedUp", "credential_backed_up"]) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() != Some(0),
        _ => false,
    };
    let authenticator = json!({
        "credentialID": credential_id,
        "userId": user_id,
        "providerAccountId": text_of(row, &["providerAccountId", "provider_account_id"]).unwrap_or_else(|| credential_id.clone()),
        "credentialPublicKey": text_of(row, &["credentialPublicKey", "credential_public_key"]),
        "counter": field(row, &["counter"]).and_then(Value::as_u64).unwrap_or(0),
        "credentialDeviceType": text_of(row, &["credentialDeviceType", "credential_device_type"]).unwrap_or_else(|| "singleDevice".into()),
        "credentialBackedUp": backed_up,
        "transports": text_of(row, &["transports"]),
    });
    let authenticator: Authenticator = match serde_json::from_value(authenticator) {
        Ok(a) => a,
        Err(e) => return outcomes.skip(KIND, credential_id, e),
    };
    write_authenticator(target, outcomes, &authenticator, None);
}

/// Create a passkey unless it is there. With `account`, its `webauthn`
/// account is linked first (Better Auth keeps none; Auth.js's is among its
/// accounts), and unlinked again if the passkey cannot be written, so
/// neither is left without the other.
fn write_authenticator(
    target: &Target,
    outcomes: &mut Outcomes,
    authenticator: &Authenticator,
    account: Option<&AdapterAccount>,
) {
    let look = |adapter: &dyn Adapter| {
        if let Some(account) = account {
            if let Some(owner) = adapter.get_user_by_account(&account.provider, &account.provider_account_id)? {
                if owner.id != authenticator.user_id {
                    return Ok(Found::Conflict("its passkey account is linked to another libauth user"));
                }
            }
        }
        Ok(match adapter.get_authenticator(&authenticator.credential_id)? {
            Some(existing) if existing.user_id == authenticator.user_id => Found::Same,
            Some(_) => Found::Conflict("libauth has this passkey for another user"),
            None => Found::Absent,
        })
    };
    let write = |adapter: &dyn Adapter| {
        let linked = match account.map(|a| adapter.link_account(a)) {
            Some(Ok(())) => true,
            Some(Err(e)) if !already_there(&e) => return Err(e),
            _ => false,
        };
        let written = adapter.create_authenticator(authenticator).map(drop);
        if let (Err(_), true, Some(a)) = (&written, linked, account) {
            let _ = adapter.unlink_account(&a.provider, &a.provider_account_id);
        }
        written
    };
    write_once(target, outcomes, "passkeys", authenticator.credential_id.clone(), look, write);
}

fn report(db: &Database, dry_run: bool, outcomes: &Outcomes, json: bool, out: &mut dyn Write) -> Outcome {
    let verb = if dry_run { "would write" } else { "written" };
    if json {
        let mut counts = Map::new();
        for (kind, c) in &outcomes.counts {
            counts.insert(
                (*kind).to_owned(),
                json!({ "written": c.written, "present": c.present, "skipped": c.skipped }),
            );
        }
        print_json(
            out,
            &json!({
                "database": db.describe(),
                "dryRun": dry_run,
                "counts": counts,
                "skipped": outcomes.skipped,
                "notes": outcomes.notes,
            }),
        )?;
    } else {
        let title = if dry_run { "dry run, nothing written" } else { "imported" };
        write_line(out, &format!("{} ({title}):", db.describe()))?;
        for (kind, c) in &outcomes.counts {
            write_line(
                out,
                &format!("  {kind:<20} {verb} {}, already there {}, skipped {}", c.written, c.present, c.skipped),
            )?;
        }
        for line in &outcomes.skipped {
            write_line(out, &format!("  skipped: {line}"))?;
        }
        for line in &outcomes.notes {
            write_line(out, &format!("  note: {line}"))?;
        }
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A JSON value of the kinds a source column holds.
    fn column() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "[ -~]{0,24}".prop_map(Value::from),
            Just(json!("2026-11-28T09:00:00.123+00:00")),
            Just(json!("2026-11-28 09:00:00")),
            Just(json!("2099-01-01T00:00:00Z")),
            Just(json!("credential")),
            Just(json!("1")),
            Just(json!("pbkdf2_sha256$600000$salt$aGFzaA==")),
            Just(json!("argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA")),
            Just(json!("!unusable")),
            Just(json!("q83vEjRWeJq83vASNFZ4mg")),
            Just(json!("eyJfYXV0aF91c2VyX2lkIjoiMSJ9:1tXyZa:c2ln")),
            Just(json!(".eJyrVopPLC3JiC8tTi2KT8lMUbJSMlTSUcpMUbIyMqgFAGWVCBI:1tXyZa:c2ln")),
        ]
    }

    /// A row with some of the columns Auth.js's tables have, each of any kind.
    fn row() -> impl Strategy<Value = Map<String, Value>> {
        let names = [
            "id",
            "userId",
            "user_id",
            "email",
            "emailVerified",
            "name",
            "image",
            "provider",
            "providerAccountId",
            "type",
            "access_token",
            "expires_at",
            "sessionToken",
            "expires",
            "identifier",
            "token",
            "credentialID",
            "credentialPublicKey",
            "counter",
            "credentialBackedUp",
            "transports",
            // Better Auth's and Django's.
            "accountId",
            "providerId",
            "password",
            "accessTokenExpiresAt",
            "expiresAt",
            "publicKey",
            "backedUp",
            "deviceType",
            "is_active",
            "first_name",
            "username",
            "session_key",
            "session_data",
            "expire_date",
        ];
        proptest::collection::vec((proptest::sample::select(names.to_vec()), column()), 0..12)
            .prop_map(|pairs| pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

        /// Whatever a source row holds, each import step counts it exactly
        /// once (written, already there, or skipped) and never panics.
        #[test]
        fn every_row_is_counted_once(rows in proptest::collection::vec(row(), 1..8)) {
            let adapter = libauth_core::store::from_config(&json!({ "type": "memory" }), Arc::new(NoHooks)).unwrap();
            let target = Target { adapter: Some(adapter), dry_run: false };
            let mut outcomes = Outcomes::default();
            let mut users = std::collections::HashSet::new();
            let now = libauth_core::time::now_millis() as i64;
            for row in &rows {
                if let Some(id) = import_user(&target, row, &mut outcomes) {
                    users.insert(id);
                }
                import_account(&target, row, &users, &mut outcomes);
                import_session(&target, row, &users, now, &mut outcomes);
                import_token(&target, row, now, &mut outcomes);
                import_authenticator(&target, row, &users, &mut outcomes);
            }
            for (kind, c) in &outcomes.counts {
                prop_assert_eq!(c.written + c.present + c.skipped, rows.len(), "{}", kind);
            }
            prop_assert_eq!(outcomes.counts.len(), 5);
        }

        /// The same for Better Auth's rows and Django's (a Django user's
        /// password is looked at only when the user was written).
        #[test]
        fn every_better_auth_and_django_row_is_counted_once(rows in proptest::collection::vec(row(), 1..8)) {
            let now = libauth_core::time::now_millis() as i64;
            let adapter = libauth_core::store::from_config(&json!({ "type": "memory" }), Arc::new(NoHooks)).unwrap();
            let target = Target { adapter: Some(adapter), dry_run: false };
            let mut outcomes = Outcomes::default();
            let mut users = std::collections::HashSet::new();
            for row in &rows {
                if let Some(id) = better_auth::import_user(&target, row, now, &mut outcomes) {
                    users.insert(id);
                }
                better_auth::import_account(&target, row, &users, &mut outcomes);
                better_auth::import_session(&target, row, &users, Some("secret"), now, &mut outcomes);
                better_auth::import_passkey(&target, row, &users, &mut outcomes);
            }
            for (kind, c) in &outcomes.counts {
                prop_assert_eq!(c.written + c.present + c.skipped, rows.len(), "{}", kind);
            }

            let adapter = libauth_core::store::from_config(&json!({ "type": "memory" }), Arc::new(NoHooks)).unwrap();
            let target = Target { adapter: Some(adapter), dry_run: false };
            let mut outcomes = Outcomes::default();
            let mut users = std::collections::HashSet::new();
            for (n, row) in rows.iter().enumerate() {
                if let Some(id) = django::import_user(&target, row, &mut outcomes) {
                    django::import_password(&target, row, &id, &mut outcomes);
                    users.insert(id);
                }
                django::import_session(&target, row, n + 1, &users, Some("key"), now, &mut outcomes);
            }
            let total = |kind: &str| outcomes.counts.iter().find(|(k, _)| *k == kind).map_or(0, |(_, c)| c.written + c.present + c.skipped);
            prop_assert_eq!(total("users"), rows.len());
            prop_assert_eq!(total("sessions"), rows.len());
            prop_assert!(total("accounts") <= rows.len());
        }
    }
}
