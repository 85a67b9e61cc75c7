//! `libauth provider add <name>`: what to register at a built-in provider
//! (the callback URL) and what to set here (the environment variables),
//! with the link to the provider's console from its page in `docs/`. For
//! Apple it can mint the client-secret JWT from the `.p8` key.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use libauth_core::providers::apple::mint_client_secret_for;
use libauth_core::providers::builtin::BUILTINS;
use libauth_core::providers::oauth::{ProviderOptions, SigningKey};
use serde_json::json;

use crate::output::{print_json, write_line, Exit, Failure, Outcome};

/// Each built-in provider's page, whose `Console:` line says where its
/// app is registered.
const PAGES: &[(&str, &str)] = &[
    ("apple", include_str!("../guides/apple.md")),
    ("auth0", include_str!("../guides/auth0.md")),
    ("discord", include_str!("../guides/discord.md")),
    ("facebook", include_str!("../guides/facebook.md")),
    ("github", include_str!("../guides/github.md")),
    ("gitlab", include_str!("../guides/gitlab.md")),
    ("google", include_str!("../guides/google.md")),
    ("keycloak", include_str!("../guides/keycloak.md")),
    ("linkedin", include_str!("../guides/linkedin.md")),
    ("microsoft-entra-id", include_str!("../guides/microsoft-entra-id.md")),
    ("okta", include_str!("../guides/okta.md")),
    ("slack", include_str!("../guides/slack.md")),
    ("spotify", include_str!("../guides/spotify.md")),
    ("tiktok", include_str!("../guides/tiktok-login-kit.md")),
    ("twitch", include_str!("../guides/twitch.md")),
    ("twitter", include_str!("../guides/twitter.md")),
];

/// Apple's audience for client secrets, and the longest lifetime it
/// accepts (six months).
const APPLE_AUDIENCE: &str = "https://appleid.apple.com";
const APPLE_MAX_DAYS: u64 = 180;

#[derive(Args, Debug)]
pub struct AddArgs {
    /// A built-in provider: github, google, apple, microsoft-entra-id, …
    name: String,
    /// The application's public URL (default: AUTH_URL, else http://localhost:3000).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Where the auth routes are mounted (default: /auth, or AUTH_URL's path).
    #[arg(long, value_name = "PATH")]
    base_path: Option<String>,
    /// Apple: mint the client secret (a JWT) from this `.p8` key file.
    #[arg(long, value_name = "FILE", requires_all = ["team_id", "key_id", "client_id"])]
    p8: Option<PathBuf>,
    /// Apple: the team id (10 characters, top right of the developer account).
    #[arg(long, value_name = "ID")]
    team_id: Option<String>,
    /// Apple: the key id of the `.p8` key.
    #[arg(long, value_name = "ID")]
    key_id: Option<String>,
    /// Apple: the Services ID (the client id).
    #[arg(long, value_name = "ID")]
    client_id: Option<String>,
    /// Apple: days until the minted client secret expires (at most 180).
    #[arg(long, value_name = "DAYS", default_value_t = APPLE_MAX_DAYS)]
    expires_in: u64,
    /// Report as JSON.
    #[arg(long)]
    json: bool,
}

/// The `Console:` line of a provider's page.
fn console_of(name: &str) -> Option<&'static str> {
    let page = PAGES.iter().find(|(n, _)| *n == name)?.1;
    page.lines().find_map(|l| l.strip_prefix("Console: ")).map(str::trim)
}

/// The callback URL a provider must know: origin + base path +
/// `/callback/<id>`.
fn callback_url(url: Option<&str>, base_path: Option<&str>, id: &str) -> Result<String, Failure> {
    let env_url = std::env::var("AUTH_URL").ok().filter(|u| !u.is_empty());
    let raw = url.map(str::to_owned).or(env_url).unwrap_or_else(|| "http://localhost:3000".to_owned());
    let parsed = url::Url::parse(&raw).map_err(|e| Failure::Usage(format!("--url {raw:?}: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Failure::Usage(format!("--url {raw:?} must be an http(s) URL")));
    }
    let base = match base_path {
        Some(path) => path.trim_end_matches('/').to_owned(),
        None if parsed.path() != "/" => parsed.path().trim_end_matches('/').to_owned(),
        None => "/auth".to_owned(),
    };
    if !base.starts_with('/') {
        return Err(Failure::Usage(format!("--base-path {base:?} must start with /")));
    }
    Ok(format!("{}{base}/callback/{id}", parsed.origin().ascii_serialization()))
}

pub fn add(args: &AddArgs, out: &mut dyn Write) -> Outcome {
    let Some((name, behaviour)) = BUILTINS.iter().find(|(n, _)| *n == args.name) else {
        let known: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
        return Err(Failure::Usage(format!("no built-in provider {:?}; known: {}", args.name, known.join(", "))));
    };
    let defaults = behaviour.defaults();
    let display = defaults.name.unwrap_or(name);
    let env_key = name.to_ascii_uppercase().replace('-', "_");
    let mut env = vec![format!("AUTH_{env_key}_ID"), format!("AUTH_{env_key}_SECRET")];
    // A provider whose endpoints depend on the tenant (Keycloak, Okta,
    // Auth0) has no issuer of its own: OpenID Connect without one cannot
    // discover its endpoints.
    let needs_issuer = match behaviour.configured_defaults(&ProviderOptions::default()) {
        Ok(d) => d.kind == Some("oidc") && d.issuer.is_none(),
        Err(_) => true,
    };
    if needs_issuer {
        env.push(format!("AUTH_{env_key}_ISSUER"));
    }
    let callback = callback_url(args.url.as_deref(), args.base_path.as_deref(), name)?;
    let console = console_of(name).unwrap_or("see the provider's developer documentation");

    let minted = match &args.p8 {
        Some(path) if *name == "apple" => Some(mint_apple(args, path)?),
        Some(_) => return Err(Failure::Usage("--p8 is for Apple".into())),
        None => None,
    };
    let signs_itself = *name == "apple";

    if args.json {
        let mut report = json!({
            "provider": name,
            "name": display,
            "callbackUrl": callback,
            "environment": env,
            "console": console,
            "config": { "builtin": name },
        });
        if let Some((secret, expires)) = &minted {
            report["clientSecret"] = json!({ "AUTH_APPLE_SECRET": secret, "expiresAt": expires });
        }
        print_json(out, &report)?;
        return Ok(Exit::Ok);
    }
    write_line(out, &format!("{display} ({name})"))?;
    write_line(out, &format!("  console:       {console}"))?;
    write_line(out, &format!("  callback URL:  {callback}"))?;
    write_line(out, "                 (register it in the console exactly as written)")?;
    write_line(out, &format!("  environment:   {}", env.join(", ")))?;
    if signs_itself {
        write_line(
            out,
            "                 or, instead of AUTH_APPLE_SECRET, AUTH_APPLE_TEAM_ID, AUTH_APPLE_KEY_ID and AUTH_APPLE_PRIVATE_KEY (the .p8's PEM): the engine then mints the client secret itself",
        )?;
    }
    write_line(out, &format!("  config:        {}", json!({ "builtin": name })))?;
    if let Some((secret, expires)) = minted {
        write_line(out, &format!("\nAUTH_APPLE_SECRET={secret}"))?;
        write_line(out, &format!("(expires {expires}; mint a new one before then)"))?;
    }
    Ok(Exit::Ok)
}

/// Apple's client secret from the `.p8` key, and when it expires.
fn mint_apple(args: &AddArgs, path: &std::path::Path) -> Result<(String, String), Failure> {
    if args.expires_in == 0 || args.expires_in > APPLE_MAX_DAYS {
        return Err(Failure::Usage(format!("--expires-in must be 1 to {APPLE_MAX_DAYS} days (Apple's limit)")));
    }
    let pem = std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read the key {}: {e}", path.display())))?;
    let key = SigningKey {
        team_id: args.team_id.clone().unwrap_or_default(),
        key_id: args.key_id.clone().unwrap_or_default(),
        private_key: pem,
    };
    let client_id = args.client_id.clone().unwrap_or_default();
    let now = libauth_core::time::now_seconds();
    let lifetime = args.expires_in * 86_400;
    let secret = mint_client_secret_for(&key, &client_id, APPLE_AUDIENCE, now, lifetime)
        .map_err(|e| Failure::Failed(format!("cannot sign with {}: {e}", path.display())))?;
    Ok((secret, libauth_core::time::iso_millis((now + lifetime) * 1000)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_a_page_with_its_console() {
        for (name, _) in BUILTINS {
            let console = console_of(name).unwrap_or_else(|| panic!("{name}: no Console: line"));
            assert!(console.contains("https://"), "{name}: {console}");
        }
    }

    #[test]
    fn the_callback_url_follows_the_url_and_base_path() {
        assert_eq!(
            callback_url(Some("https://app.example.com"), None, "github").unwrap(),
            "https://app.example.com/auth/callback/github"
        );
        assert_eq!(
            callback_url(Some("https://app.example.com/api/auth/"), None, "google").unwrap(),
            "https://app.example.com/api/auth/callback/google"
        );
        assert_eq!(
            callback_url(Some("http://localhost:8080"), Some("/login/"), "x").unwrap(),
            "http://localhost:8080/login/callback/x"
        );
        assert!(callback_url(Some("ftp://x"), None, "x").is_err());
        assert!(callback_url(Some("https://x"), Some("auth"), "x").is_err());
    }
}
