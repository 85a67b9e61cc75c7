//! `tiktok-sim`: run the TikTok Login Kit simulator as a local server.
//!
//! `cargo run -p tiktok-sim -- --port 8787 --redirect-uri http://localhost:3000/api/auth/callback/tiktok`

use std::process::ExitCode;
use std::time::Duration;
use tiktok_sim::{AuthorizeMode, OAuthErrorStatus, PkceMode, Platform, ScopeErrorMode, SimConfig, Simulator};

const USAGE: &str = "\
tiktok-sim: local simulator of TikTok Login Kit (OAuth 2.0, API v2) and /v2/user/info/

USAGE: tiktok-sim [OPTIONS]

OPTIONS (each also readable from the environment variable shown):
  --host HOST                 address to bind [TIKTOK_SIM_HOST, default 127.0.0.1]
  --port PORT                 port to bind, 0 = any free one [TIKTOK_SIM_PORT, default 8787]
  --client-key KEY            the app's client_key [TIKTOK_SIM_CLIENT_KEY, default sim-client-key]
  --client-secret SECRET      the app's client_secret [TIKTOK_SIM_CLIENT_SECRET, default sim-client-secret]
  --redirect-uri URI          a registered redirect URI; repeat for several
                              [TIKTOK_SIM_REDIRECT_URIS, comma- or space-separated;
                               default http://localhost:3000/api/auth/callback/tiktok,
                               http://127.0.0.1:3000/api/auth/callback/tiktok,
                               http://localhost:3000/auth/callback/tiktok]
  --platform any|web|desktop  redirect-URI registration rules [TIKTOK_SIM_PLATFORM, default any]
  --pkce base64url|hex|either accepted S256 challenge encoding [TIKTOK_SIM_PKCE, default base64url]
  --pkce-required             refuse authorize requests without code_challenge [TIKTOK_SIM_PKCE_REQUIRED=1]
  --classic                   classic docs: 24 h / 365 d lifetimes, no refresh-token rotation
  --access-ttl SECS           access-token lifetime [TIKTOK_SIM_ACCESS_TTL, default 7200]
  --refresh-ttl SECS          refresh-token lifetime [TIKTOK_SIM_REFRESH_TTL, default 15552000]
  --code-ttl SECS             authorization-code lifetime [TIKTOK_SIM_CODE_TTL, default 300]
  --no-rotate                 keep the same refresh token on refresh [TIKTOK_SIM_NO_ROTATE=1]
  --oauth-error-status N|rfc6749
                              HTTP status of token/revoke errors [TIKTOK_SIM_OAUTH_ERROR_STATUS, default 200]
  --scope-error scope_not_authorized|scope_permission_missed|omit
                              user info, field without its scope [TIKTOK_SIM_SCOPE_ERROR, default scope_not_authorized]
  --authorize auto|deny|consent
                              what the simulated user does [TIKTOK_SIM_AUTHORIZE, default auto]
  --quiet                     do not log requests [TIKTOK_SIM_QUIET=1]
  -h, --help                  this text

Everything else can be changed at run time through POST /__sim/config (see GET /__sim/).
";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn env_flag(name: &str) -> bool {
    env(name).is_some_and(|v| !matches!(v.as_str(), "0" | "false" | "no"))
}

fn parse_secs(flag: &str, v: &str) -> Result<Duration, String> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{flag}: expected a number of seconds, got {v:?}"))
}

fn run() -> Result<(), String> {
    let mut cfg = SimConfig { log_requests: true, ..SimConfig::default() };
    let mut host = env("TIKTOK_SIM_HOST").unwrap_or_else(|| "127.0.0.1".into());
    let mut port = env("TIKTOK_SIM_PORT").unwrap_or_else(|| "8787".into());
    let mut redirects: Vec<String> = env("TIKTOK_SIM_REDIRECT_URIS")
        .map(|v| v.split([',', ' ', '\n', '\t']).filter(|s| !s.is_empty()).map(String::from).collect())
        .unwrap_or_default();

    // Settings as (flag, value) pairs: environment first, then the command line overrides.
    let mut settings: Vec<(String, String)> = Vec::new();
    for (var, flag) in [
        ("TIKTOK_SIM_CLIENT_KEY", "--client-key"),
        ("TIKTOK_SIM_CLIENT_SECRET", "--client-secret"),
        ("TIKTOK_SIM_PLATFORM", "--platform"),
        ("TIKTOK_SIM_PKCE", "--pkce"),
        ("TIKTOK_SIM_ACCESS_TTL", "--access-ttl"),
        ("TIKTOK_SIM_REFRESH_TTL", "--refresh-ttl"),
        ("TIKTOK_SIM_CODE_TTL", "--code-ttl"),
        ("TIKTOK_SIM_OAUTH_ERROR_STATUS", "--oauth-error-status"),
        ("TIKTOK_SIM_SCOPE_ERROR", "--scope-error"),
        ("TIKTOK_SIM_AUTHORIZE", "--authorize"),
    ] {
        if let Some(v) = env(var) {
            settings.push((flag.into(), v));
        }
    }
    for (var, flag) in [
        ("TIKTOK_SIM_PKCE_REQUIRED", "--pkce-required"),
        ("TIKTOK_SIM_NO_ROTATE", "--no-rotate"),
        ("TIKTOK_SIM_QUIET", "--quiet"),
    ] {
        if env_flag(var) {
            settings.push((flag.into(), String::new()));
        }
    }
    let mut cli_redirects = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || -> Result<String, String> {
            inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            "--host" => host = value()?,
            "--port" => port = value()?,
            "--redirect-uri" => cli_redirects.push(value()?),
            "--classic" | "--pkce-required" | "--no-rotate" | "--quiet" => settings.push((flag.clone(), String::new())),
            "--client-key"
            | "--client-secret"
            | "--platform"
            | "--pkce"
            | "--access-ttl"
            | "--refresh-ttl"
            | "--code-ttl"
            | "--oauth-error-status"
            | "--scope-error"
            | "--authorize" => {
                let v = value()?;
                settings.push((flag.clone(), v));
            }
            other => return Err(format!("unknown option {other:?} (see --help)")),
        }
    }
    if !cli_redirects.is_empty() {
        redirects = cli_redirects;
    }
    // --classic first, so explicit TTL flags win whatever their order.
    if settings.iter().any(|(f, _)| f == "--classic") {
        let classic = SimConfig::classic();
        cfg.access_ttl = classic.access_ttl;
        cfg.refresh_ttl = classic.refresh_ttl;
        cfg.rotate_refresh_tokens = classic.rotate_refresh_tokens;
    }
    for (flag, v) in &settings {
        match flag.as_str() {
            "--client-key" => cfg.client_key = v.clone(),
            "--client-secret" => cfg.client_secret = v.clone(),
            "--platform" => {
                cfg.platform = match v.as_str() {
                    "any" => Platform::Any,
                    "web" => Platform::Web,
                    "desktop" => Platform::Desktop,
                    _ => return Err(format!("--platform: expected any, web or desktop, got {v:?}")),
                }
            }
            "--pkce" => {
                cfg.pkce = match v.as_str() {
                    "base64url" => PkceMode::Base64Url,
                    "hex" => PkceMode::Hex,
                    "either" => PkceMode::Either,
                    _ => return Err(format!("--pkce: expected base64url, hex or either, got {v:?}")),
                }
            }
            "--pkce-required" => cfg.pkce_required = true,
            "--no-rotate" => cfg.rotate_refresh_tokens = false,
            "--quiet" => cfg.log_requests = false,
            "--access-ttl" => cfg.access_ttl = parse_secs(flag, v)?,
            "--refresh-ttl" => cfg.refresh_ttl = parse_secs(flag, v)?,
            "--code-ttl" => cfg.code_ttl = parse_secs(flag, v)?,
            "--oauth-error-status" => {
                cfg.oauth_error_status = if v == "rfc6749" {
                    OAuthErrorStatus::Rfc6749
                } else {
                    let n: u16 = v.parse().ok().filter(|n| (100..600).contains(n)).ok_or_else(|| {
                        format!("--oauth-error-status: expected an HTTP status or rfc6749, got {v:?}")
                    })?;
                    OAuthErrorStatus::Fixed(n)
                }
            }
            "--scope-error" => {
                cfg.scope_error = match v.as_str() {
                    "scope_not_authorized" => ScopeErrorMode::NotAuthorized,
                    "scope_permission_missed" => ScopeErrorMode::PermissionMissed,
                    "omit" => ScopeErrorMode::Omit,
                    _ => return Err(format!("--scope-error: unexpected {v:?}")),
                }
            }
            "--authorize" => {
                cfg.authorize_mode = match v.as_str() {
                    "auto" | "approve" | "auto_approve" => AuthorizeMode::AutoApprove,
                    "deny" => AuthorizeMode::Deny,
                    "consent" => AuthorizeMode::Consent,
                    _ => return Err(format!("--authorize: expected auto, deny or consent, got {v:?}")),
                }
            }
            _ => {}
        }
    }
    if !redirects.is_empty() {
        cfg.redirect_uris = redirects;
    }
    let port: u16 = port.parse().map_err(|_| format!("--port: not a port number: {port:?}"))?;
    let bind_host = if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host.clone() };
    let sim = Simulator::bind(format!("{bind_host}:{port}"), cfg.clone()).map_err(|e| e.to_string())?;
    let u = sim.urls();
    if !cfg.log_requests {
        // --quiet: one line, no banner.
        println!("TikTok Login Kit simulator listening on {}", sim.base_url());
        sim.wait();
        return Ok(());
    }
    println!("TikTok Login Kit simulator listening on {}", sim.base_url());
    println!("  client_key      {}", cfg.client_key);
    println!("  client_secret   {}", cfg.client_secret);
    for r in &cfg.redirect_uris {
        println!("  redirect_uri    {r}");
    }
    println!("  authorization   {}", u.authorization);
    println!("  token           {}", u.token);
    println!("  revoke          {}", u.revoke);
    println!("  userinfo        {}", u.userinfo);
    println!("  test hooks      {}/__sim/", sim.base_url());
    println!(
        "  lifetimes       access {}s, refresh {}s, code {}s; refresh rotation {}; PKCE {:?}{}",
        cfg.access_ttl.as_secs(),
        cfg.refresh_ttl.as_secs(),
        cfg.code_ttl.as_secs_f64(),
        if cfg.rotate_refresh_tokens { "on" } else { "off" },
        cfg.pkce,
        if cfg.pkce_required { " (required)" } else { "" },
    );
    sim.wait();
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tiktok-sim: {e}");
            ExitCode::from(2)
        }
    }
}
