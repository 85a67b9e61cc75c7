//! Building an engine from its config: the checks that refuse a bad
//! config (naming the option) and the composition of its parts.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use crate::config::{Config, Env, SessionStrategy, Settings};
use crate::cookies::CookieSet;
use crate::csrf::Csrf;
use crate::error::{ConfigError, ErrorType};
use crate::host::{self, Hook, Host};
use crate::jwt::JwtCodec;
use crate::providers::{self, Providers};
use crate::store::{self, Stores};
use crate::{callbacks::Callbacks, ratelimit, session_cache, sign_outs, tokens, webauthn, Auth};

impl Auth {
    pub(crate) fn build(
        config: Config,
        host: Arc<dyn Host>,
        env: &dyn Env,
        sibling: Option<&Auth>,
    ) -> Result<Auth, ConfigError> {
        let settings = Settings::resolve(&config, env)?;
        // Every hook call the engine makes gets its deadline here.
        let host: Arc<dyn Host> =
            Arc::new(host::TimedHost::new(host, settings.hook_timeout, settings.hook_timeouts.clone()));
        let providers = Providers::parse(&config.providers, host.as_ref(), env)?;
        // Hook names first: a misspelt adapter method is named as such,
        // not reported as a missing one.
        check_hook_names(host.as_ref(), &providers, config.adapter.as_ref())?;
        let limits = ratelimit::RateLimits::parse(config.rate_limit.as_ref())?;
        let stores = match sibling {
            Some(sibling) => sibling.stores.clone(),
            None => Arc::new(Stores::from_config(
                &store::StoresConfig {
                    adapter: config.adapter.as_ref(),
                    secondary_storage: config.secondary_storage.as_ref(),
                    encrypt_tokens: config.encrypt_tokens,
                    counters: limits.store(),
                    secrets: &settings.secrets,
                },
                host.clone(),
            )?),
        };
        check_email_adapter(&providers, stores.data())?;
        check_password_adapter(&providers, stores.data())?;
        let plain_cookies = CookieSet::new(false, &settings.cookies);
        let secure_cookies = CookieSet::new(true, &settings.cookies);
        // Derive the session keys now, for both cookie names a request may
        // use, so no request pays for HKDF.
        let codec = JwtCodec::new(
            settings.secrets.clone(),
            &[plain_cookies.session_token.name.as_str(), secure_cookies.session_token.name.as_str()],
        );
        let session_cache = match settings.session_cache {
            Some(cache) if settings.strategy == SessionStrategy::Jwt && !host.has(&Hook::JWT_DECODE) => {
                Some(session_cache::SessionCache::new(cache))
            }
            _ => None,
        };
        let sign_outs = sign_outs_for(&settings, stores.data())?;
        let csrf = Csrf::new(settings.secrets.clone());
        let callbacks = Callbacks::new(host.clone(), settings.debug);
        webauthn::check_config(&providers, stores.data(), settings.web_authn)?;
        if settings.web_authn {
            callbacks.logger.warn(
                host.as_ref(),
                "experimental-webauthn",
                "WebAuthn (passkeys) is experimental in Auth.js: its wire protocol may still change there",
            );
        }
        let limiter = ratelimit::Limiter::new(
            limits,
            stores.counters.clone(),
            ratelimit::TrustedProxies::parse(&config.trusted_proxies)?
                .with_header(ratelimit::client_ip::ForwardedHeader::parse(config.forwarded_header.as_ref())?),
            &settings.secrets[0],
        );
        let session_hookless = settings.strategy == SessionStrategy::Jwt
            && stores.data().is_none()
            && !reaches_host(host.as_ref(), host::HookKind::reached_by_session_reads);
        let pages_hookless = !reaches_host(host.as_ref(), host::HookKind::reached_by_pages);
        Ok(Auth {
            session_hookless,
            pages_hookless,
            overload: crate::admission::OverloadLog::default(),
            limiter,
            refreshes: tokens::Flights::default(),
            refresh_skew: std::time::Duration::from_secs(config.token_refresh.skew.unwrap_or(60)),
            refresh_wait: std::time::Duration::from_secs(config.token_refresh.wait.unwrap_or(10).clamp(1, 120)),
            stores,
            custom_session_token: host.has(&Hook::GENERATE_SESSION_TOKEN),
            custom_jwt_encode: host.has(&Hook::JWT_ENCODE),
            custom_jwt_decode: host.has(&Hook::JWT_DECODE),
            last_purge: std::sync::atomic::AtomicU64::new(0),
            challenge_purge_due: std::sync::atomic::AtomicU64::new(0),
            in_flight: sibling.map_or_else(|| Arc::new(AtomicUsize::new(0)), |s| s.in_flight.clone()),
            settings,
            callbacks,
            providers,
            codec,
            session_cache,
            sign_outs,
            csrf,
            plain_cookies,
            secure_cookies,
        })
    }
}

/// The sign-out check of JWT sessions: on by default when the sessions'
/// store keeps sign-out times; asked for (`session.revocationCheck`) where
/// none can be kept, a configuration error.
fn sign_outs_for(
    settings: &Settings,
    data: Option<&store::DataStores>,
) -> Result<Option<sign_outs::SignOuts>, ConfigError> {
    use sign_outs::{RevocationOption, RevocationSettings};
    let keeps = data.is_some_and(|db| db.sessions.keeps_sign_outs());
    let settings = match (settings.revocation_check, settings.strategy) {
        (RevocationOption::Off, _) | (_, SessionStrategy::Database) => return Ok(None),
        (RevocationOption::Default, _) if !keeps => return Ok(None),
        (RevocationOption::Default, _) => RevocationSettings::default(),
        (RevocationOption::On(_), _) if !keeps => {
            return Err(ConfigError::new(
                RevocationOption::OPTION,
                if data.is_none() {
                    "needs an `adapter` to keep when each user's sessions were ended"
                } else {
                    "this adapter cannot keep when a user's sessions were ended: use a built-in one, or `secondaryStorage`"
                },
            ))
        }
        (RevocationOption::On(on), _) => on,
    };
    Ok(Some(sign_outs::SignOuts::new(settings)))
}

/// Whether some hook the host registered is of a kind `reached` says a
/// request can call.
fn reaches_host(host: &dyn Host, reached: fn(&host::HookKind) -> bool) -> bool {
    match host.hook_names() {
        Some(names) => names.iter().filter_map(|n| host::HookKind::parse(n)).any(|kind| reached(&kind)),
        // A host that cannot list its hooks: ask for each fixed hook name.
        None => Hook::FIXED
            .iter()
            .any(|hook| host.has(hook) && host::HookKind::parse(hook.name()).is_some_and(|k| reached(&k))),
    }
}

/// Every hook the host registered must be one the engine calls: a known
/// name ([`host::HookKind::parse`]), a provider hook for a configured
/// provider of the right type, adapter hooks only for a host adapter. A
/// misspelt callback is refused here, as a misspelt option is.
fn check_hook_names(
    host: &dyn Host,
    providers: &Providers,
    adapter: Option<&serde_json::Value>,
) -> Result<(), ConfigError> {
    use host::{HookKind, ProviderMethod};
    let Some(mut names) = host.hook_names() else { return Ok(()) };
    names.sort();
    let host_adapter = adapter.and_then(|a| a.get("type")).and_then(serde_json::Value::as_str) == Some("host");
    for name in names {
        let kind = HookKind::parse(&name).ok_or_else(|| {
            ConfigError::new(name.clone(), format!("unknown hook: {}", host::known_hooks_hint(&name)))
        })?;
        match kind {
            HookKind::Provider { id, method } => {
                let provider = providers.get(&id).ok_or_else(|| {
                    ConfigError::new(name.clone(), format!("there is no provider with id {id:?} for this function"))
                })?;
                let fits = matches!(
                    (&provider.kind, method),
                    (providers::ProviderKind::Credentials(_), ProviderMethod::Authorize)
                        | (providers::ProviderKind::Email(_), ProviderMethod::SendVerificationRequest)
                        | (providers::ProviderKind::OAuth(_), ProviderMethod::Profile)
                        | (providers::ProviderKind::WebAuthn(_), ProviderMethod::GetUserInfo)
                        | (
                            providers::ProviderKind::Password(_),
                            ProviderMethod::SendEmail | ProviderMethod::CheckPassword
                        )
                );
                if !fits {
                    return Err(ConfigError::new(
                        name.clone(),
                        format!("a {} provider does not call this function", provider.provider_type().as_str()),
                    ));
                }
            }
            HookKind::Adapter(_) if !host_adapter => {
                return Err(ConfigError::new(
                    name.clone(),
                    "adapter functions are called only for a host adapter (`adapter: { \"type\": \"host\" }`)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The password provider keeps users, their password (on an account) and
/// its links' tokens through the adapter.
fn check_password_adapter(providers: &Providers, stores: Option<&store::DataStores>) -> Result<(), ConfigError> {
    let Some((provider, _)) = providers.password() else { return Ok(()) };
    const NEEDED: [&str; 7] = [
        "createUser",
        "getUserByEmail",
        "linkAccount",
        "getUserAccount",
        "updateAccount",
        "createVerificationToken",
        "useVerificationToken",
    ];
    match stores {
        None => Err(ConfigError::new(
            "adapter",
            format!("the password provider {:?} keeps its accounts through an adapter; configure one", provider.id),
        )
        .with_kind(ErrorType::MissingAdapter)),
        Some(a) => match NEEDED.iter().find(|m| !a.supports(m)) {
            Some(missing) => Err(ConfigError::new(
                "adapter",
                format!("the password provider needs the adapter method {missing} (and {})", NEEDED.join(", ")),
            )
            .with_kind(ErrorType::MissingAdapterMethods)),
            None => Ok(()),
        },
    }
}

/// The email provider stores its tokens through the adapter.
fn check_email_adapter(providers: &Providers, stores: Option<&store::DataStores>) -> Result<(), ConfigError> {
    let Some((index, p)) =
        providers.iter().enumerate().find(|(_, p)| matches!(p.kind, providers::ProviderKind::Email(_)))
    else {
        return Ok(());
    };
    match stores {
        None => Err(ConfigError::new(
            "adapter",
            format!("the email provider {:?} (providers[{index}]) stores its sign-in tokens through an adapter; configure one", p.id),
        )
        .with_kind(ErrorType::MissingAdapter)),
        Some(a) if !(a.supports("createVerificationToken") && a.supports("useVerificationToken")) => Err(ConfigError::new(
            "adapter",
            "the email provider needs the adapter methods createVerificationToken and useVerificationToken",
        )
        .with_kind(ErrorType::MissingAdapterMethods)),
        Some(_) => Ok(()),
    }
}
