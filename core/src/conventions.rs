//! Host conventions, decided once for every binding.
//!
//! A binding knows its host language, not the hooks. Core tells it:
//!
//! - **Which functions of a config are which hooks** ([`compile_host_config`]):
//!   the binding replaces every function in the user's config with a marker
//!   `{"$libauth.fn": n}` and sends the JSON; core answers the engine's
//!   config, the hook name of each marker (`callbacks.jwt`,
//!   `providers.<id>.authorize`, `adapter.createUser`, …) and the markers
//!   that are provider factories listed uncalled (`providers: [GitHub]`),
//!   which the binding calls and compiles again. The provider-id rule, the
//!   built-in adapter names and the adapter method names live here.
//! - **How each hook is called** ([`HookCall::describe`]): positional
//!   arguments, and the paths among them of values to turn into the host's
//!   date, request and error types. The binding applies that blindly.
//! - **How an answer comes back** ([`decode_reply`]) and how an engine error
//!   crosses ([`crate::AuthError::to_wire`]).
//!
//! Adding a hook kind, an adapter method or an error is then a change here.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{ConfigError, HostError};
use crate::host::{HookKind, LogLevel, ProviderMethod};

/// The key of the marker a binding puts where a function was.
pub const FUNCTION_MARKER: &str = "$libauth.fn";

/// The adapters the engine implements itself (`adapter: { type: … }`).
pub const BUILTIN_ADAPTERS: [&str; 3] = ["sqlite", "postgres", "memory"];

/// One hook call as the binding makes it: `fn(...args)`, after turning the
/// values at `dates` into the host's date type (they are ISO-8601 strings),
/// the `{ method, url, headers }` records at `requests` into its request
/// type, and the `{ type, message, code?, cause? }` records at `errors` into
/// its error class. A path is dot-separated from the argument index
/// (`"0.expires"`, `"1"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookCall {
    pub args: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dates: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// For a host whose functions take keyword arguments (Python): the
    /// hook's parameters, Auth.js's names in order. A callback or event
    /// (one object) is called with each as a keyword, absent ones as none;
    /// `authorize` with `credentials` and `request`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<&'static str>,
}

/// The parameters of the hooks called with keyword arguments, in Auth.js's
/// names: everything the engine may pass, so a host can offer each one.
fn keywords_of(kind: &HookKind) -> &'static [&'static str] {
    use crate::host::{Callback, Event};
    match kind {
        HookKind::Callback(Callback::SignIn) => &["user", "account", "profile", "email", "credentials"],
        HookKind::Callback(Callback::Redirect) => &["url", "baseUrl"],
        HookKind::Callback(Callback::Jwt) => {
            &["token", "user", "account", "profile", "trigger", "isNewUser", "session"]
        }
        HookKind::Callback(Callback::Session) => &["session", "token", "user", "newSession", "trigger"],
        HookKind::Event(Event::SignIn) => &["user", "account", "profile", "isNewUser"],
        HookKind::Event(Event::SignOut) => &["session", "token"],
        HookKind::Event(Event::CreateUser | Event::UpdateUser) => &["user"],
        HookKind::Event(Event::LinkAccount) => &["user", "account", "profile"],
        HookKind::Event(Event::Session) => &["session", "token"],
        HookKind::Event(Event::RateLimited) => &["route", "key", "limit", "window", "retryAfter"],
        HookKind::Event(Event::RefreshTokenRevoked) => &["userId", "provider", "providerAccountId"],
        HookKind::Event(
            Event::EmailVerified | Event::PasswordReset | Event::PasswordChanged | Event::AccountDeleted,
        ) => &["user"],
        HookKind::Event(Event::EmailChanged) => &["user", "previousEmail"],
        HookKind::Event(Event::SessionsEnded) => &["userId", "ended", "scope", "before"],
        HookKind::Event(Event::TwoFactorEnabled | Event::TwoFactorDisabled) => &["userId"],
        HookKind::Event(Event::RecoveryCodeUsed) => &["userId", "left"],
        HookKind::Provider { method: ProviderMethod::Authorize, .. } => &["credentials", "request"],
        HookKind::Provider { method: ProviderMethod::GetUserInfo, .. } => &["options", "request"],
        _ => &[],
    }
}

impl HookCall {
    /// How a host calls `hook` with the engine's arguments: Auth.js's
    /// signature for each kind.
    pub fn describe(hook: &str, engine_args: Value) -> HookCall {
        let Some(kind) = HookKind::parse(hook) else {
            return HookCall {
                args: vec![engine_args],
                dates: Vec::new(),
                requests: Vec::new(),
                errors: Vec::new(),
                keywords: Vec::new(),
            };
        };
        let keywords = keywords_of(&kind).to_vec();
        let call = |args: Vec<Value>| HookCall {
            args,
            dates: Vec::new(),
            requests: Vec::new(),
            errors: Vec::new(),
            keywords: keywords.clone(),
        };
        let mut fields = match engine_args {
            Value::Object(map) => map,
            // Every kind below takes an object; anything else is passed on.
            other => {
                let mut c = call(vec![other]);
                if let HookKind::Adapter(_) = kind {
                    c.args = match c.args.pop() {
                        Some(Value::Array(list)) => list,
                        Some(one) => vec![one],
                        None => Vec::new(),
                    };
                }
                return c;
            }
        };
        let mut take = |key: &str| fields.remove(key).unwrap_or(Value::Null);
        match kind {
            // authorize(credentials, request)
            HookKind::Provider { method: ProviderMethod::Authorize, .. } => {
                HookCall { requests: vec!["1".into()], ..call(vec![take("credentials"), take("request")]) }
            }
            // getUserInfo(options, request): options are the provider's
            // (`{ provider: { id, name, type } }`), the request as authorize's.
            HookKind::Provider { method: ProviderMethod::GetUserInfo, .. } => {
                HookCall { requests: vec!["1".into()], ..call(vec![take("options"), take("request")]) }
            }
            // profile(profile, tokens)
            HookKind::Provider { method: ProviderMethod::Profile, .. } => call(vec![take("profile"), take("tokens")]),
            // sendVerificationRequest({ identifier, url, expires: Date, token, provider, theme, request })
            HookKind::Provider { method: ProviderMethod::SendVerificationRequest, .. } => HookCall {
                dates: vec!["0.expires".into()],
                requests: vec!["0.request".into()],
                ..call(vec![Value::Object(fields)])
            },
            // sendEmail({ kind, to, url?, expires?: Date, locale, provider, request }),
            // checkPassword({ password, email, request }): one object each.
            HookKind::Provider { method: ProviderMethod::SendEmail, .. } => {
                let dates = if fields.get("expires").is_some_and(Value::is_string) {
                    vec!["0.expires".into()]
                } else {
                    Vec::new()
                };
                HookCall { dates, requests: vec!["0.request".into()], ..call(vec![Value::Object(fields)]) }
            }
            HookKind::Provider { method: ProviderMethod::CheckPassword, .. } => {
                HookCall { requests: vec!["0.request".into()], ..call(vec![Value::Object(fields)]) }
            }
            // error(error: AuthError), warn(code, message), debug(message, metadata)
            HookKind::Logger(LogLevel::Error) => {
                HookCall { errors: vec!["0".into()], ..call(vec![Value::Object(fields)]) }
            }
            HookKind::Logger(LogLevel::Warn) => call(vec![take("code"), take("message")]),
            HookKind::Logger(LogLevel::Debug) => call(vec![take("message"), take("metadata")]),
            HookKind::GenerateSessionToken => call(Vec::new()),
            // updateAuthenticatorCounter(credentialID, newCounter, lastUsedAt: Date):
            // Auth.js's two arguments, then libauth's date of the use.
            HookKind::Adapter(method) if method == "updateAuthenticatorCounter" => {
                let args = vec![take("credentialID"), take("newCounter"), take("lastUsedAt")];
                let dates = if args[2].is_string() { vec!["2".into()] } else { Vec::new() };
                HookCall { dates, ..call(args) }
            }
            // renameAuthenticator(credentialID, name | null)
            HookKind::Adapter(method) if method == "renameAuthenticator" => {
                call(vec![take("credentialID"), take("name")])
            }
            // Auth.js's adapter methods take Dates for `expires` and
            // `emailVerified`; a passkey's `createdAt` and `lastUsedAt` are
            // Dates too.
            HookKind::Adapter(_) => {
                let dates = ["expires", "emailVerified", "createdAt", "lastUsedAt"]
                    .into_iter()
                    .filter(|key| fields.get(*key).is_some_and(Value::is_string))
                    .map(|key| format!("0.{key}"))
                    .collect();
                HookCall { dates, ..call(vec![Value::Object(fields)]) }
            }
            // callbacks.*, events.*, jwt.encode/decode: one object, as Auth.js.
            HookKind::Callback(_) | HookKind::Event(_) | HookKind::JwtEncode | HookKind::JwtDecode => {
                call(vec![Value::Object(fields)])
            }
        }
    }
}

/// A host's answer to a hook call: `ok` with its result as JSON (empty for
/// "nothing", e.g. `undefined` or `None`), or not `ok` with the error the
/// hook raised as `{ message, type?, code? }` (plain text is a message).
pub fn decode_reply(ok: bool, json: &str) -> Result<Value, HostError> {
    if ok {
        if json.is_empty() {
            return Ok(Value::Null);
        }
        return serde_json::from_str(json)
            .map_err(|e| HostError::new(format!("the hook returned a value that is not JSON-serialisable: {e}")));
    }
    Err(serde_json::from_str::<HostError>(json).unwrap_or_else(|_| HostError::new(json.to_owned())))
}

/// A config whose functions were replaced by markers, split into what the
/// engine reads and the hooks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompiledConfig {
    /// The engine's config (functions gone; `adapter: { type: "host" }` for
    /// an adapter of functions; `authorize: true` where one was given).
    pub config: Value,
    /// `(marker, hook name)` for every function.
    pub hooks: Vec<(u64, String)>,
    /// Markers of providers listed as uncalled factories: call each with no
    /// arguments, put the result in its place, and compile again.
    pub factories: Vec<u64>,
}

/// Split a marked config (see the module doc). A function anywhere the
/// engine calls none is refused, naming the option.
pub fn compile_host_config(mut config: Value) -> Result<CompiledConfig, ConfigError> {
    let Value::Object(root) = &mut config else { return Err(ConfigError::new("config", "must be an object")) };
    let mut out = CompiledConfig { config: Value::Null, hooks: Vec::new(), factories: Vec::new() };
    for group in ["callbacks", "events", "logger"] {
        if let Some(Value::Object(map)) = root.get_mut(group) {
            let names: Vec<String> = map.keys().cloned().collect();
            for name in names {
                if let Some(marker) = marker_of(&map[&name]) {
                    out.hooks.push((marker, format!("{group}.{name}")));
                    map.remove(&name);
                }
            }
            if map.is_empty() {
                root.remove(group);
            }
        }
    }
    for (group, names) in [("jwt", &["encode", "decode"][..]), ("session", &["generateSessionToken"][..])] {
        if let Some(Value::Object(map)) = root.get_mut(group) {
            for name in names {
                if let Some(marker) = map.get(*name).and_then(marker_of) {
                    out.hooks.push((marker, format!("{group}.{name}")));
                    map.remove(*name);
                }
            }
        }
    }
    if let Some(Value::Array(providers)) = root.get_mut("providers") {
        for (index, provider) in providers.iter_mut().enumerate() {
            if let Some(marker) = marker_of(provider) {
                out.factories.push(marker);
                continue;
            }
            compile_provider(index, provider, &mut out.hooks)?;
        }
    }
    if let Some(adapter) = root.get_mut("adapter") {
        compile_adapter(adapter, &mut out.hooks)?;
    }
    // With factories to call, the binding compiles again: check then.
    if out.factories.is_empty() {
        if let Some(path) = find_marker(&config, "") {
            return Err(ConfigError::new(path, "cannot be a function"));
        }
    }
    out.config = config;
    Ok(out)
}

/// `id`, else the built-in provider's name, else the type (`passkey` for
/// type `webauthn`): the id a provider's functions are named under
/// (`providers.<id>.authorize`), as the engine names the provider itself.
pub fn provider_id(provider: &Map<String, Value>) -> Option<&str> {
    ["id", "builtin", "type"].iter().find_map(|key| provider.get(*key).and_then(Value::as_str)).map(|id| {
        match (provider.get("id"), id) {
            (None, "webauthn") => crate::providers::webauthn::DEFAULT_ID,
            _ => id,
        }
    })
}

fn compile_provider(index: usize, provider: &mut Value, hooks: &mut Vec<(u64, String)>) -> Result<(), ConfigError> {
    let Value::Object(map) = provider else { return Ok(()) }; // the engine names what is wrong
                                                              // Auth.js's provider factories keep the user's options under `options`.
    if let Some(Value::Object(options)) = map.remove("options") {
        map.extend(options);
    }
    let id = provider_id(map).map(str::to_owned).ok_or_else(|| {
        ConfigError::new(format!("providers[{index}].type"), "missing; one of oauth, oidc, email, credentials")
    })?;
    let names: Vec<String> = map.keys().cloned().collect();
    for name in names {
        if let Some(marker) = marker_of(&map[&name]) {
            hooks.push((marker, format!("providers.{id}.{name}")));
            map.remove(&name);
            // The engine reads `authorize: true` as "the host implements it".
            if name == "authorize" {
                map.insert(name, Value::Bool(true));
            }
        }
    }
    Ok(())
}

fn compile_adapter(adapter: &mut Value, hooks: &mut Vec<(u64, String)>) -> Result<(), ConfigError> {
    let Value::Object(map) = adapter else { return Ok(()) };
    if map.get("type").and_then(Value::as_str).is_some_and(|t| BUILTIN_ADAPTERS.contains(&t)) {
        return Ok(());
    }
    let mut found = 0;
    for (name, value) in map.iter() {
        let Some(marker) = marker_of(value) else { continue };
        // Python adapters may spell their methods in snake_case.
        let method = camel_case(name);
        if crate::store::METHODS.contains(&method.as_str())
            || crate::store::AUTHENTICATOR_METHODS.contains(&method.as_str())
            || crate::store::ACCOUNT_METHODS.contains(&method.as_str())
        {
            hooks.push((marker, format!("adapter.{method}")));
            found += 1;
        }
    }
    if found == 0 {
        return Err(ConfigError::new(
            "adapter",
            format!(
                "must be {{ type: {} }} or an object with adapter methods (createUser, getUser, …)",
                BUILTIN_ADAPTERS.map(|t| format!("{t:?}")).join(" | ")
            ),
        ));
    }
    *adapter = serde_json::json!({ "type": "host" });
    Ok(())
}

fn marker_of(value: &Value) -> Option<u64> {
    match value {
        Value::Object(map) if map.len() == 1 => map.get(FUNCTION_MARKER)?.as_u64(),
        _ => None,
    }
}

/// The option path of the first marker left in `value`.
fn find_marker(value: &Value, path: &str) -> Option<String> {
    if marker_of(value).is_some() {
        return Some(if path.is_empty() { "config".to_owned() } else { path.to_owned() });
    }
    match value {
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| find_marker(v, &if path.is_empty() { k.clone() } else { format!("{path}.{k}") })),
        Value::Array(list) => list.iter().enumerate().find_map(|(i, v)| find_marker(v, &format!("{path}[{i}]"))),
        _ => None,
    }
}

fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(n: u64) -> Value {
        json!({ FUNCTION_MARKER: n })
    }

    #[test]
    fn functions_become_named_hooks_and_data_stays() {
        let compiled = compile_host_config(json!({
            "secret": "s",
            "callbacks": { "jwt": f(1), "session": f(2) },
            "events": { "signIn": f(3) },
            "logger": { "error": f(4) },
            "jwt": { "maxAge": 60, "encode": f(5) },
            "session": { "strategy": "jwt", "generateSessionToken": f(6) },
            "providers": [
                { "type": "credentials", "authorize": f(7), "credentials": {} },
                { "builtin": "github", "options": { "clientId": "x", "profile": f(8) } },
                { "type": "email", "id": "magic", "sendVerificationRequest": f(9) },
                { "type": "webauthn", "getUserInfo": f(16) },
                f(10)
            ],
            "adapter": { "create_user": f(11), "getUser": f(12), "helper": f(13), "get_authenticator": f(14),
                         "updateAuthenticatorCounter": f(15) }
        }))
        .unwrap();
        let names: Vec<(u64, &str)> = compiled.hooks.iter().map(|(m, n)| (*m, n.as_str())).collect();
        for expected in [
            (1, "callbacks.jwt"),
            (2, "callbacks.session"),
            (3, "events.signIn"),
            (4, "logger.error"),
            (5, "jwt.encode"),
            (6, "session.generateSessionToken"),
            (7, "providers.credentials.authorize"),
            (8, "providers.github.profile"),
            (9, "providers.magic.sendVerificationRequest"),
            (11, "adapter.createUser"),
            (12, "adapter.getUser"),
            (14, "adapter.getAuthenticator"),
            (15, "adapter.updateAuthenticatorCounter"),
            (16, "providers.passkey.getUserInfo"),
        ] {
            assert!(names.contains(&expected), "{expected:?} in {names:?}");
        }
        assert_eq!(compiled.factories, vec![10]);
        let config = &compiled.config;
        assert_eq!(config["adapter"], json!({ "type": "host" }));
        assert_eq!(config["providers"][0]["authorize"], true);
        assert_eq!(config["providers"][1]["clientId"], "x");
        assert_eq!(config["jwt"], json!({ "maxAge": 60 }));
        assert!(config.get("callbacks").is_none());
    }

    #[test]
    fn a_function_where_none_is_called_names_the_option() {
        let err = compile_host_config(json!({ "pages": { "signIn": f(1) } })).unwrap_err();
        assert_eq!(err.option, "pages.signIn");
        let err = compile_host_config(json!({ "adapter": { "notAMethod": f(1) } })).unwrap_err();
        assert_eq!(err.option, "adapter");
        assert!(compile_host_config(json!({ "adapter": { "type": "sqlite", "path": "x" } })).is_ok());
    }

    #[test]
    fn calls_follow_authjs_signatures() {
        let c = HookCall::describe(
            "providers.credentials.authorize",
            json!({ "credentials": { "u": 1 }, "request": { "url": "http://x/" } }),
        );
        assert_eq!(c.args, vec![json!({ "u": 1 }), json!({ "url": "http://x/" })]);
        assert_eq!(c.requests, vec!["1"]);
        let c = HookCall::describe("logger.warn", json!({ "code": "c", "message": "m" }));
        assert_eq!(c.args, vec![json!("c"), json!("m")]);
        let c = HookCall::describe(
            "adapter.createSession",
            json!({ "sessionToken": "t", "expires": "2030-01-01T00:00:00.000Z" }),
        );
        assert_eq!(c.dates, vec!["0.expires"]);
        let c = HookCall::describe(
            "adapter.updateAuthenticatorCounter",
            json!({ "credentialID": "c1", "newCounter": 7, "lastUsedAt": "2030-01-01T00:00:00.000Z" }),
        );
        assert_eq!(c.args, vec![json!("c1"), json!(7), json!("2030-01-01T00:00:00.000Z")]);
        assert_eq!(c.dates, vec!["2"]);
        let c = HookCall::describe("adapter.renameAuthenticator", json!({ "credentialID": "c1", "name": null }));
        assert_eq!(c.args, vec![json!("c1"), Value::Null]);
        let c = HookCall::describe(
            "adapter.createAuthenticator",
            json!({ "credentialID": "c1", "createdAt": "2030-01-01T00:00:00.000Z", "lastUsedAt": null }),
        );
        assert_eq!(c.dates, vec!["0.createdAt"]);
        let c = HookCall::describe("adapter.getUser", json!("id-1"));
        assert_eq!(c.args, vec![json!("id-1")]);
        let c = HookCall::describe("session.generateSessionToken", json!({}));
        assert!(c.args.is_empty());
        let c = HookCall::describe("callbacks.jwt", json!({ "token": {} }));
        assert_eq!(c.args, vec![json!({ "token": {} })]);
    }

    /// The shared conformance vectors (run from Node, Python and C too)
    /// agree with the descriptions: what a host hook receives is the
    /// described call, with dates, requests and errors marked.
    #[test]
    fn the_conformance_vectors_are_the_described_calls() {
        let doc: Value = serde_json::from_str(include_str!("../../tests/fixtures/hook-conformance.json")).unwrap();
        let mut kinds = std::collections::BTreeSet::new();
        for case in doc["cases"].as_array().unwrap() {
            let hook = case["hook"].as_str().unwrap();
            let call = HookCall::describe(hook, case["engineArgs"].clone());
            let mut args = Value::Array(call.args);
            for (paths, wrap) in [(&call.dates, "$date"), (&call.requests, "$request"), (&call.errors, "$error")] {
                for path in paths {
                    let mut slot = &mut args;
                    for key in path.split('.') {
                        slot = match slot {
                            Value::Array(list) => &mut list[key.parse::<usize>().unwrap()],
                            other => &mut other[key],
                        };
                    }
                    let inner = if wrap == "$error" {
                        json!({ "type": slot["type"], "message": slot["message"],
                                "cause": slot["cause"].as_array().map(|c| c.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")) })
                    } else {
                        slot.clone()
                    };
                    *slot = json!({ wrap: inner });
                }
            }
            assert_eq!(args, case["received"], "{hook}");
            let keywords: Vec<&str> =
                case["keywords"].as_array().map(|k| k.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            assert_eq!(call.keywords, keywords, "{hook}: keywords");
            kinds.insert(format!("{:?}", HookKind::parse(hook).unwrap()).split(['(', ' ']).next().unwrap().to_owned());
        }
        // Every kind of hook, and every adapter method, is in the vectors.
        let hooks: Vec<&str> = doc["cases"].as_array().unwrap().iter().filter_map(|c| c["hook"].as_str()).collect();
        for method in crate::store::METHODS
            .iter()
            .chain(&crate::store::AUTHENTICATOR_METHODS)
            .chain(&crate::store::ACCOUNT_METHODS)
        {
            assert!(hooks.contains(&format!("adapter.{method}").as_str()), "adapter.{method} missing");
        }
        for kind in
            ["Callback", "Event", "Provider", "Adapter", "Logger", "JwtEncode", "JwtDecode", "GenerateSessionToken"]
        {
            assert!(kinds.contains(kind), "{kind} missing from the conformance vectors: {kinds:?}");
        }
    }

    #[test]
    fn replies_decode_as_values_or_host_errors() {
        assert_eq!(decode_reply(true, "").unwrap(), Value::Null);
        assert_eq!(decode_reply(true, "{\"a\":1}").unwrap(), json!({ "a": 1 }));
        assert!(decode_reply(true, "{").is_err());
        let e = decode_reply(false, r#"{"message":"no","type":"CredentialsSignin","code":"x"}"#).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.error_type.as_deref(), e.code.as_deref()),
            ("no", Some("CredentialsSignin"), Some("x"))
        );
        assert_eq!(decode_reply(false, "plain").unwrap_err().message, "plain");
    }
}
