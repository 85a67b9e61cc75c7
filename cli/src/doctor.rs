//! `libauth doctor`: check a configuration without running application
//! code. It builds the engine from the JSON configuration (every option
//! checked by the engine's own parser, errors naming the option), then
//! looks at what the engine cannot judge alone: the secret's strength, the
//! URL the app is reached at, cookies for that scheme, proxies, and
//! whether the database, Redis and the SMTP server answer.
//!
//! The application's functions (callbacks, `authorize`, an adapter written
//! in the host language) are not in a JSON file: the check presumes each
//! one the configuration names is there, and never calls it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use libauth_core::providers::ProviderKind;
use libauth_core::store::counters::StoreConfig;
use libauth_core::store::migrations;
use libauth_core::store::{postgres, sqlite, AdapterOptions};
use libauth_core::{Auth, Config, ConfigError, Hook, HostError, Settings};
use serde_json::{json, Value};
use url::Url;

use crate::database::read_config;
use crate::output::{Failure, Outcome, Report};

/// The configuration file read when `--config` is not given.
const DEFAULT_CONFIG: &str = "auth.json";

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The libauth configuration (JSON; default: ./auth.json if present,
    /// else the environment alone).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The URL users reach the application at (e.g. https://app.example.com).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &DoctorArgs, out: &mut dyn Write) -> Outcome {
    let mut report = Report::default();
    let url = match &args.url {
        Some(raw) => Some(parse_url(raw)?),
        None => None,
    };
    let config = match (&args.config, Path::new(DEFAULT_CONFIG).exists()) {
        (Some(path), _) => read_config(path)?,
        (None, true) => read_config(Path::new(DEFAULT_CONFIG))?,
        (None, false) => {
            report.note("config", format!("no --config and no ./{DEFAULT_CONFIG}: checking the environment alone"));
            json!({})
        }
    };
    let auth = match build(&config) {
        Ok(auth) => auth,
        Err(e) => {
            report.problem(format!("config {}", e.option), e.message);
            return report.print(args.json, out);
        }
    };
    report.ok("config", "every option is valid");
    let settings = auth.settings();
    check_secrets(&settings.secrets, &mut report);
    let origin = check_url(url.as_ref(), settings, &mut report);
    if let Some(origin) = &origin {
        check_cookies(origin, settings, &mut report);
    }
    check_proxies(&config, settings, &mut report);
    check_providers(&auth, origin.as_ref(), &mut report);
    check_database(config.get("adapter"), &mut report);
    check_redis(&config, &mut report);
    report.print(args.json, out)
}

fn parse_url(raw: &str) -> Result<Url, Failure> {
    let url = Url::parse(raw).map_err(|e| Failure::Usage(format!("--url {raw:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(Failure::Usage(format!("--url {raw:?} must be an http(s) URL")));
    }
    Ok(url)
}

/// A host that has every function the configuration names and runs none:
/// the check is of the configuration, not of the application's code.
struct PresumedHooks;

impl libauth_core::Host for PresumedHooks {
    fn has(&self, _: &Hook) -> bool {
        true
    }
    fn call(&self, hook: &Hook, _: Value) -> Result<Value, HostError> {
        Err(HostError::new(format!("{hook} is the application's code: `libauth doctor` does not run it")))
    }
}

/// The engine, built from `config` without touching a database: a SQLite
/// file (the adapter's, or the rate limits' own) is replaced by an
/// in-memory one, since the engine would create and migrate it;
/// PostgreSQL and Redis connect only on first use.
fn build(config: &Value) -> Result<Auth, ConfigError> {
    let mut config = config.clone();
    if let Some(adapter) = config.get_mut("adapter") {
        if let AdapterOptions::Sqlite(_) = AdapterOptions::parse(adapter)? {
            *adapter = json!({ "type": "sqlite", "path": ":memory:" });
        }
    }
    if let Some(Value::Object(store)) = config.pointer_mut("/rateLimit/store") {
        if store.get("type").and_then(Value::as_str) == Some("sqlite") && store.contains_key("path") {
            store.insert("path".into(), json!(":memory:"));
        }
    }
    Auth::new(Config::from_value(config)?, Arc::new(PresumedHooks))
}

/// Words that mark a secret someone typed or copied from an example.
const PLACEHOLDERS: [&str; 8] = ["secret", "password", "changeme", "change-me", "example", "your", "xxxx", "1234"];

/// A rough strength estimate of a secret, in bits: its length times the
/// bits of the character classes it uses. Generated secrets (base64, hex)
/// score far above the bar; a phrase or a repeated pattern does not.
fn estimated_bits(secret: &str) -> u32 {
    let has = |f: fn(&char) -> bool| secret.chars().any(|c| f(&c));
    let classes = [
        (has(char::is_ascii_lowercase), 26.0),
        (has(char::is_ascii_uppercase), 26.0),
        (has(char::is_ascii_digit), 10.0),
        (has(|c| !c.is_ascii_alphanumeric()), 33.0),
    ];
    let alphabet: f64 = classes.iter().filter(|(present, _)| *present).map(|(_, n)| n).sum();
    let mut distinct: Vec<char> = secret.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    // A secret of few distinct characters is as weak as that alphabet.
    let alphabet = alphabet.min(distinct.len() as f64 * 2.0).max(1.0);
    (secret.chars().count() as f64 * alphabet.log2()) as u32
}

fn check_secrets(secrets: &[String], report: &mut Report) {
    for (i, secret) in secrets.iter().enumerate() {
        let topic = if secrets.len() == 1 { "secret".to_owned() } else { format!("secret[{i}]") };
        let lower = secret.to_ascii_lowercase();
        let bits = estimated_bits(secret);
        if let Some(word) = PLACEHOLDERS.iter().find(|w| lower.contains(*w)) {
            report.problem(
                topic,
                format!("contains {word:?}, as a typed or example secret does: generate one with `libauth secret`"),
            );
        } else if bits < 128 {
            report.problem(
                topic,
                format!("about {bits} bits by a rough estimate, under 128: generate one with `libauth secret`"),
            );
        } else {
            report.ok(topic, format!("{} characters, about {bits} bits", secret.chars().count()));
        }
    }
    if secrets.len() > 1 {
        report.note(
            "secret",
            format!(
                "{} secrets: the first signs and encrypts, the others still read what they signed; drop them once those sessions have expired",
                secrets.len()
            ),
        );
    }
}

/// The origin users reach the app at (`--url`, else `AUTH_URL`/`url`), with
/// its consistency with `trustHost` and `AUTH_URL`.
fn check_url(url: Option<&Url>, settings: &Settings, report: &mut Report) -> Option<Url> {
    let canonical = settings.canonical_url.as_ref();
    match (url, canonical) {
        (Some(given), Some(canonical)) if given.origin() != canonical.origin() => report.problem(
            "url",
            format!(
                "AUTH_URL (or `url`) is {}, but the app is reached at {}: links and callbacks would point at the first",
                canonical.origin().ascii_serialization(),
                given.origin().ascii_serialization()
            ),
        ),
        (_, Some(canonical)) => report.ok(
            "url",
            format!("AUTH_URL (or `url`) fixes the origin: {}", canonical.origin().ascii_serialization()),
        ),
        (_, None) if settings.trust_host => report.note(
            "url",
            "trustHost: the origin is taken from each request's Host (and X-Forwarded-Host); only right behind a proxy that sets them",
        ),
        (_, None) => report.problem(
            "url",
            "neither AUTH_URL (`url`) nor trustHost (AUTH_TRUST_HOST) is set: every request is refused as UntrustedHost",
        ),
    }
    url.or(canonical).cloned()
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn check_cookies(origin: &Url, settings: &Settings, report: &mut Report) {
    let https = origin.scheme() == "https";
    match (https, settings.use_secure_cookies, is_loopback(origin)) {
        (true, Some(false), _) => report.problem(
            "cookies",
            "useSecureCookies is false on https: session cookies lose the Secure flag and the __Secure- prefix",
        ),
        (true, _, _) => report.ok("cookies", "https: Secure cookies with __Secure- / __Host- prefixes"),
        (false, Some(true), false) => report.problem(
            "cookies",
            "useSecureCookies on plain http: browsers refuse Secure cookies there, so nobody stays signed in",
        ),
        (false, _, true) => {
            report.note("cookies", "http on this machine: fine for development; use https in production")
        }
        (false, _, false) => report.problem(
            "cookies",
            format!("{origin} is plain http: session cookies would cross the network in clear; serve it over https"),
        ),
    }
}

fn check_proxies(config: &Value, settings: &Settings, report: &mut Report) {
    let proxies = config.get("trustedProxies").and_then(Value::as_array).map_or(0, Vec::len);
    match (proxies, settings.trust_host) {
        (0, true) => report.note(
            "proxies",
            "no trustedProxies: behind a proxy, rate limits count every client as the proxy's address; list the proxies' addresses",
        ),
        (0, false) => report.ok("proxies", "none trusted: client addresses are the connection's own"),
        (n, _) => report.ok("proxies", format!("X-Forwarded-For is read from {n} trusted proxy range(s)")),
    }
}

fn check_providers(auth: &Auth, origin: Option<&Url>, report: &mut Report) {
    let base_path = &auth.settings().base_path;
    let prefix = origin.map(|o| o.origin().ascii_serialization()).unwrap_or_default();
    let mut any = false;
    for provider in auth.providers().iter() {
        any = true;
        let topic = format!("providers.{}", provider.id);
        match &provider.kind {
            ProviderKind::OAuth(_) => {
                let callback = format!("{prefix}{base_path}/callback/{}", provider.id);
                report.ok(topic, format!("register this callback URL at {}: {callback}", provider.name));
            }
            ProviderKind::Email(email) => check_email(&topic, email, report),
            _ => report.ok(topic, provider.provider_type().as_str()),
        }
    }
    if !any {
        report.problem("providers", "none configured: there is no way to sign in");
    } else if origin.is_none() {
        report.note("providers", "pass --url (or set AUTH_URL) to see full callback URLs");
    }
}

fn check_email(topic: &str, email: &libauth_core::providers::EmailProvider, report: &mut Report) {
    // The presumed hooks include sendVerificationRequest: a `server` is
    // what says the engine sends mail itself.
    match &email.smtp {
        Some(smtp) => match smtp.test_connection() {
            Ok(()) => report.ok(topic, format!("SMTP server {}:{} answers", smtp.host, smtp.port)),
            Err(e) => report.problem(topic, format!("SMTP server {}:{}: {e}", smtp.host, smtp.port)),
        },
        None => report.ok(topic, "no `server`: links are sent by the application's sendVerificationRequest"),
    }
}

fn check_database(adapter: Option<&Value>, report: &mut Report) {
    let Some(adapter) = adapter else {
        report.ok("database", "no adapter: sessions are JWTs in cookies");
        return;
    };
    let (what, planned) = match AdapterOptions::parse(adapter) {
        Ok(AdapterOptions::Memory) => {
            return report.note("database", "memory adapter: users and sessions are lost at restart (tests only)")
        }
        Ok(AdapterOptions::Host) => {
            return report.note("database", "the application's own adapter: its storage is not checked here")
        }
        Ok(AdapterOptions::Sqlite(path)) if path == ":memory:" => {
            return report.note("database", "SQLite in memory: everything is lost at restart (tests only)")
        }
        Ok(AdapterOptions::Sqlite(path)) if !Path::new(&path).exists() => {
            return report.note(
                "database",
                format!("SQLite {path} does not exist yet: the engine creates it at start (or run `libauth migrate`)"),
            )
        }
        Ok(AdapterOptions::Sqlite(path)) => {
            (format!("SQLite {path}"), sqlite::plan_file(&path, None).map(|(v, _)| (v, sqlite::MIGRATIONS)))
        }
        Ok(AdapterOptions::Postgres(pg)) => (
            format!("PostgreSQL (schema {})", pg.schema),
            postgres::plan(&pg, None).map(|(v, _)| (v, postgres::MIGRATIONS)),
        ),
        // Already reported by the engine's own check.
        Err(_) => return,
    };
    match planned {
        Ok((version, list)) => {
            let latest = migrations::latest(list);
            if version == latest {
                report.ok("database", format!("{what} answers, schema version {version} (the newest)"));
            } else {
                report.note(
                    "database",
                    format!(
                        "{what} answers, schema version {version} of {latest}: the engine migrates at start, or run `libauth migrate` before deploying"
                    ),
                );
            }
        }
        Err(e) => {
            report.problem("database", format!("{what}: {e}"));
        }
    }
}

fn check_redis(config: &Value, report: &mut Report) {
    let mut targets = Vec::new();
    if let Some(Value::Object(map)) = config.get("secondaryStorage") {
        if let Ok(options) = libauth_core::store::redis_options::RedisOptions::parse(map, "secondaryStorage", &["type"])
        {
            targets.push(("secondaryStorage", options));
        }
    }
    let store = config.get("rateLimit").and_then(|r| r.get("store"));
    if let Ok((StoreConfig::Redis(options), _)) = libauth_core::ratelimit::config::parse(store) {
        targets.push(("rateLimit.store", options));
    }
    for (topic, options) in targets {
        let pool = match libauth_core::store::redis::RedisPool::new(&options) {
            Ok(pool) => pool,
            Err(e) => {
                report.problem(topic, e);
                continue;
            }
        };
        match pool.ping() {
            Ok(()) => report.ok(topic, "Redis answers"),
            Err(e) => report.problem(topic, format!("Redis: {}", e.message)),
        }
    }
}
