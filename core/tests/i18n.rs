//! The built-in pages and the sign-in email in the user's language: every
//! page in every locale, the resolution order, the pseudo-locale, bounded
//! `Accept-Language` parsing, escaping, and the `i18n` option's checks.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::i18n::{self, Catalogues, I18nConfig, LOCALES, PSEUDO_LOCALE};
use libauth_core::{Auth, Config, HookMap};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every kind of provider the sign-in page shows, every locale offered.
fn engine(mailed: Arc<Mutex<Vec<Value>>>, i18n: Value) -> Auth {
    let hooks = hooks().on("providers.email.sendVerificationRequest", move |args| {
        mailed.lock().unwrap().push(args);
        Ok(Value::Null)
    });
    let config = Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "experimental": { "enableWebAuthn": true },
        "adapter": { "type": "memory" },
        "providers": [
            { "type": "credentials", "credentials": { "username": { "label": "Username" } } },
            { "type": "oauth", "id": "github", "name": "GitHub", "clientId": "id", "clientSecret": "secret",
              "authorization": "https://github.example/authorize", "token": "https://github.example/token",
              "userinfo": "https://github.example/user" },
            { "type": "email", "name": "Magic link", "sendVerificationRequest": true },
            { "type": "webauthn" },
        ],
        "i18n": i18n,
    }))
    .expect("valid config");
    Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).expect("engine builds")
}

fn all_locales() -> Value {
    json!({ "locales": LOCALES.iter().map(|l| l.tag).collect::<Vec<_>>() })
}

/// The pages, with the status each answers.
const PAGES: &[(&str, u16)] = &[
    ("/auth/signin", 200),
    ("/auth/signin?error=CredentialsSignin", 200),
    ("/auth/signin?error=OAuthAccountNotLinked", 200),
    ("/auth/signout", 200),
    ("/auth/error?error=Configuration", 500),
    ("/auth/error?error=AccessDenied", 403),
    ("/auth/error?error=Verification", 403),
    ("/auth/error?error=Unknown", 200),
    ("/auth/verify-request", 200),
];

/// Askama's escaping, to find a catalogue text in a page.
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;").replace('<', "&#60;").replace('>', "&#62;").replace('"', "&#34;").replace('\'', "&#39;")
}

/// The page without its inline script (the browser module: its English
/// messages are the defaults the page's own, in `data-webauthn-messages`,
/// replace).
fn without_script(html: &str) -> String {
    match (html.find("<script"), html.find("</script>")) {
        (Some(start), Some(end)) => format!("{}{}", &html[..start], &html[end..]),
        _ => html.to_owned(),
    }
}

/// The passkey form's `data-webauthn-messages`: the attribute's span in
/// `html`, and its JSON object.
fn passkey_messages_of(html: &str) -> Option<(std::ops::Range<usize>, serde_json::Map<String, Value>)> {
    let start = html.find("data-webauthn-messages=\"")? + "data-webauthn-messages=\"".len();
    let end = start + html[start..].find('"')?;
    let raw = html[start..end]
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&");
    Some((start..end, serde_json::from_str::<Value>(&raw).ok()?.as_object()?.clone()))
}

fn english_ids() -> Vec<String> {
    i18n::message_ids(i18n::catalogue_source("en").unwrap())
}

fn get(auth: &Auth, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut b = Browser::new(auth);
    b.extra_headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let res = b.get(path);
    (res.status, res.body_str().to_owned())
}

#[test]
fn every_page_renders_in_every_locale() {
    let auth = engine(Arc::default(), all_locales());
    let catalogues = Catalogues::new(&serde_json::from_value(all_locales()).unwrap()).unwrap();
    let ids = english_ids();
    for locale in LOCALES {
        let messages = catalogues.negotiate(Some(locale.tag), None, None);
        assert_eq!(messages.tag(), locale.tag);
        for (page, status) in PAGES {
            let sep = if page.contains('?') { '&' } else { '?' };
            let (got, html) = get(&auth, &format!("{page}{sep}locale={}", locale.tag), &[]);
            assert_eq!(got, *status, "{} {page}", locale.tag);
            let dir = if locale.rtl { " dir=\"rtl\"" } else { "" };
            assert!(
                html.starts_with(&format!("<!DOCTYPE html>\n<html lang=\"{}\"{dir}>", locale.tag)),
                "{} {page}",
                locale.tag
            );
            let visible = without_script(&html);
            assert!(!visible.contains("{ $") && !visible.contains("{$"), "{} {page}: a placeable leaked", locale.tag);
            for id in &ids {
                assert!(!visible.contains(&format!(">{id}<")), "{} {page}: raw id {id}", locale.tag);
            }
        }
        // Each page shows the locale's own texts.
        let (_, signin) = get(&auth, &format!("/auth/signin?locale={}", locale.tag), &[]);
        for id in ["title-signin", "signin-heading", "signin-email-label", "signin-passkey-hint"] {
            assert!(signin.contains(&escaped(&messages.text(id))), "{}: {id} missing", locale.tag);
        }
        assert!(signin.contains(&escaped(&messages.text_with("signin-with", &[("provider", "GitHub")]))));
        let (_, signout) = get(&auth, &format!("/auth/signout?locale={}", locale.tag), &[]);
        assert!(signout.contains(&escaped(&messages.text("signout-question"))), "{}", locale.tag);
        let (_, error) = get(&auth, &format!("/auth/error?error=Verification&locale={}", locale.tag), &[]);
        for id in ["error-heading-verification", "error-verification-invalid", "error-signin-button"] {
            assert!(error.contains(&escaped(&messages.text(id))), "{}: {id} missing", locale.tag);
        }
        let (_, verify) = get(&auth, &format!("/auth/verify-request?locale={}", locale.tag), &[]);
        assert!(verify.contains(&escaped(&messages.text("verify-text"))), "{}", locale.tag);
    }
}

/// In the pseudo-locale no English text of the catalogue is left on any
/// page: an English string still hard-coded in a template would be.
#[test]
fn pseudo_locale_pages_have_no_plain_english() {
    let auth = engine(Arc::default(), all_locales());
    let english = Catalogues::new(&I18nConfig::default()).unwrap();
    let en = english.default_messages();
    // Each English text, cut at its placeables, in fragments long enough
    // not to occur by chance in markup.
    let mut fragments = Vec::new();
    for id in english_ids() {
        let text = en.text_with(&id, &[("provider", "\u{1}"), ("host", "\u{1}")]);
        fragments.extend(text.split('\u{1}').map(str::trim).filter(|f| f.len() >= 4).map(str::to_owned));
    }
    assert!(fragments.iter().any(|f| f == "Sign in with"));
    for (page, _) in PAGES {
        let sep = if page.contains('?') { '&' } else { '?' };
        let (_, html) = get(&auth, &format!("{page}{sep}locale={PSEUDO_LOCALE}"), &[]);
        // The passkey module's messages are text the user sees; their
        // keys (error codes) are not.
        let html = match passkey_messages_of(&html) {
            Some((span, messages)) => {
                let texts: Vec<String> = messages.values().map(|v| escaped(v.as_str().unwrap())).collect();
                format!("{}{}{}", &html[..span.start], texts.join(" | "), &html[span.end..])
            }
            None => html,
        };
        let visible = without_script(&html);
        for fragment in &fragments {
            assert!(!visible.contains(&escaped(fragment)), "{page}: {fragment:?} is in English in en-XA:\n{visible}");
        }
    }
}

#[test]
fn locale_comes_from_query_then_cookie_then_header_then_default() {
    let auth = engine(Arc::default(), json!({ "defaultLocale": "de" }));
    let lang = |path: &str, headers: &[(&str, &str)]| {
        let (_, html) = get(&auth, path, headers);
        html.split('"').nth(1).unwrap().to_owned()
    };
    let cookie = ("cookie", "locale=ja");
    let header = ("accept-language", "es-MX;q=0.8, nl;q=0.9");
    assert_eq!(lang("/auth/signin?locale=fr", &[cookie, header]), "fr");
    assert_eq!(lang("/auth/signin?locale=xx", &[cookie, header]), "ja");
    assert_eq!(lang("/auth/signin", &[("cookie", "locale=zz"), header]), "nl");
    assert_eq!(lang("/auth/signin", &[("accept-language", "tlh, *")]), "de");
    assert_eq!(lang("/auth/signin", &[]), "de");
    // A language offered through its region or script.
    assert_eq!(lang("/auth/signout", &[("accept-language", "pt-PT")]), "pt-BR");
    assert_eq!(lang("/auth/signout", &[("accept-language", "zh-TW, ko;q=0.5")]), "ko");
    // The engine never sets the locale cookie.
    let mut b = Browser::new(&auth);
    let res = b.get("/auth/signin?locale=fr");
    assert!(res.set_cookies().all(|c| !c.starts_with("locale=")));
}

#[test]
fn english_is_the_default_and_unchanged() {
    let auth = engine(Arc::default(), Value::Null);
    let (_, html) = get(&auth, "/auth/signin", &[]);
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n"));
    assert!(html.contains("<title>Sign In</title>"));
    assert!(html.contains("<span>Sign in with GitHub</span>"));
    assert!(html.contains(r#"<form action="http://localhost:3000/auth/signin/email" method="post">"#));
    // Without `i18n.locales`, the pseudo-locale is not offered.
    let (_, html) = get(&auth, "/auth/signin?locale=en-XA", &[]);
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n"));
}

#[test]
fn locale_inputs_never_reach_the_page() {
    let auth = engine(Arc::default(), Value::Null);
    for (path, headers) in [
        ("/auth/signin?locale=%3Cscript%3Ealert(1)%3C%2Fscript%3E", vec![]),
        ("/auth/signin?locale=fr%22%20onload%3D%22x", vec![]),
        ("/auth/signin", vec![("cookie", "locale=%3Cscript%3Ealert(1)%3C%2Fscript%3E")]),
        ("/auth/signin", vec![("accept-language", "<script>alert(1)</script>, fr\"onload=x")]),
    ] {
        let (status, html) = get(&auth, path, &headers);
        assert_eq!(status, 200);
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"), "{path}");
        assert!(!html.contains("alert(1)") && !html.contains("onload"), "{path}");
    }
}

#[test]
fn overrides_are_escaped_on_pages_and_in_the_email() {
    let evil = "<script>alert(1)</script>";
    let auth = engine(
        Arc::default(),
        json!({ "messages": { "fr": { "signin-heading": evil, "signin-with": format!("{evil} {{ $provider }}") } } }),
    );
    let (_, html) = get(&auth, "/auth/signin?locale=fr", &[]);
    assert!(html.contains("<h1>&#60;script&#62;alert(1)&#60;/script&#62;</h1>"));
    assert!(html.contains("&#60;script&#62;alert(1)&#60;/script&#62; GitHub"));
    assert!(!without_script(&html).contains(evil));
    // Unchanged elsewhere.
    let (_, html) = get(&auth, "/auth/signin?locale=de", &[]);
    assert!(html.contains("<h1>Anmelden</h1>"));

    let catalogues = Catalogues::new(
        &serde_json::from_value(json!({ "messages": { "fr": {
            "email-subject": format!("{evil} {{ $host }}"), "email-button": evil, "email-ignore": "\"'&"
        } } }))
        .unwrap(),
    )
    .unwrap();
    let mail = libauth_core::email::localised_verification_email(
        "https://x.example/cb?a=1&b=2",
        "x.example<b>",
        &catalogues.negotiate(Some("fr"), None, None),
    );
    assert!(!mail.html.contains("<script>") && !mail.html.contains("x.example<b>"), "{}", mail.html);
    assert!(mail.html.contains("&lt;script&gt;alert(1)&lt;/script&gt; <strong>x.example&lt;b&gt;</strong>"));
    assert!(mail.html.contains("&quot;&#39;&amp;"));
}

#[test]
fn the_email_is_in_the_language_of_the_request_that_asked_for_it() {
    let mailed = Arc::new(Mutex::new(Vec::new()));
    let auth = engine(mailed.clone(), Value::Null);
    let mut b = Browser::new(&auth);
    b.extra_headers = vec![("accept-language".into(), "ar, en;q=0.5".into())];
    let csrf = b.csrf();
    let res = b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", "ada@example.com")]);
    assert_eq!(res.status, 302);
    assert_eq!(mailed.lock().unwrap()[0]["locale"], "ar");
    // A language picked with ?locale on the page goes on with the form.
    let (_, page) = get(&auth, "/auth/signin?locale=ja", &[]);
    assert!(page.contains(r#"action="http://localhost:3000/auth/signin/email?locale=ja""#));
    let csrf = b.csrf();
    b.post("/auth/signin/email?locale=ja", &[("csrfToken", &csrf), ("email", "ada@example.com")]);
    assert_eq!(mailed.lock().unwrap()[1]["locale"], "ja");

    let catalogues = Catalogues::new(&I18nConfig::default()).unwrap();
    let ar = libauth_core::email::localised_verification_email(
        "https://x.example/cb",
        "x.example",
        &catalogues.negotiate(Some("ar"), None, None),
    );
    assert!(ar.html.contains("<html lang=\"ar\" dir=\"rtl\">"));
    assert!(ar.subject.starts_with("تسجيل الدخول إلى"));
    assert!(ar.subject.contains("x.example"));
    let fr = libauth_core::email::localised_verification_email(
        "https://x.example/cb",
        "x.example",
        &catalogues.negotiate(Some("fr"), None, None),
    );
    assert_eq!(fr.subject, "Connexion à x.example");
    assert!(fr.html.contains("Connexion à <strong>x.example</strong>"));
    assert!(fr.html.contains(">Se connecter</a>"));
}

#[test]
fn the_i18n_option_is_checked() {
    let build = |i18n: Value| {
        let config = Config::from_value(json!({ "secret": SECRET, "i18n": i18n }))?;
        Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).map(|_| ())
    };
    let err = build(json!({ "defaultLocal": "fr" })).unwrap_err();
    assert!(err.option.starts_with("i18n") && err.message.contains("defaultLocal"), "{err:?}");
    assert_eq!(build(json!({ "defaultLocale": "xx" })).unwrap_err().option, "i18n.defaultLocale");
    assert_eq!(build(json!({ "locales": ["fr"], "defaultLocale": "de" })).unwrap_err().option, "i18n.defaultLocale");
    assert_eq!(build(json!({ "locales": ["fr", "<b>"] })).unwrap_err().option, "i18n.locales[1]");
    assert_eq!(build(json!({ "locales": [] })).unwrap_err().option, "i18n.locales");
    assert_eq!(
        build(json!({ "messages": { "fr": { "no-such-message": "x" } } })).unwrap_err().option,
        "i18n.messages.fr.no-such-message"
    );
    assert_eq!(
        build(json!({ "messages": { "fr": { "signin-heading": 3 } } })).unwrap_err().option,
        "i18n.messages.fr.signin-heading"
    );
    build(
        json!({ "locales": ["fr", "de"], "defaultLocale": "fr", "messages": { "de": { "signin-heading": "Hallo" } } }),
    )
    .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any header: no panic, at most the bounded number of ranges, each
    /// tag short and of tag characters only, and a locale that is offered.
    #[test]
    fn accept_language_parsing_is_total_and_bounded(header in ".{0,3000}", repeat in 1usize..200) {
        let catalogues = Catalogues::new(&I18nConfig::default()).unwrap();
        for input in [header.clone(), header.repeat(repeat)] {
            let ranges = i18n::parse_accept_language(&input);
            prop_assert!(ranges.len() <= i18n::MAX_ACCEPT_LANGUAGE_RANGES);
            for r in &ranges {
                prop_assert!(r.tag.len() <= 35 && r.tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
                prop_assert!(r.weight > 0 && r.weight <= 1000);
            }
            prop_assert!(ranges.windows(2).all(|w| w[0].weight >= w[1].weight));
            let tag = catalogues.negotiate(Some(&input), Some(&input), Some(&input)).tag();
            prop_assert!(LOCALES.iter().any(|l| l.tag == tag) && tag != PSEUDO_LOCALE);
        }
    }

    #[test]
    fn language_ranges_parse(tags in proptest::collection::vec("[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8}){0,2}", 1..10),
                             q in 1u16..=1000) {
        let header = tags.iter().map(|t| format!("{t};q={}.{:03}", q / 1000, q % 1000)).collect::<Vec<_>>().join(", ");
        let ranges = i18n::parse_accept_language(&header);
        prop_assert_eq!(ranges.iter().map(|r| r.tag.clone()).collect::<Vec<_>>(), tags);
        prop_assert!(ranges.iter().all(|r| r.weight == q));
    }
}

/// An OpenID Connect provider's pages in the user's language: `ui_locales`
/// carries the locale the request asked for, never the bare default, and
/// never over the provider's own setting.
#[test]
fn oidc_sign_in_forwards_the_requested_locale_as_ui_locales() {
    let oidc = |extra: Value| {
        let mut p = json!({ "type": "oidc", "id": "corp", "issuer": "https://sso.example", "clientId": "c",
            "clientSecret": "s", "authorization": "https://sso.example/auth", "token": "https://sso.example/token",
            "jwksUri": "https://sso.example/jwks" });
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            p[k] = v;
        }
        let config = Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [p] })).unwrap();
        Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap()
    };
    let authorize = |auth: &Auth, path: &str, headers: &[(&str, &str)]| {
        let mut b = Browser::new(auth);
        b.extra_headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let csrf = b.csrf();
        let res = b.post(path, &[("csrfToken", &csrf)]);
        assert_eq!(res.status, 302);
        let url = url::Url::parse(location(&res)).unwrap();
        url.query_pairs().filter(|(k, _)| k == "ui_locales").map(|(_, v)| v.into_owned()).collect::<Vec<_>>()
    };
    let auth = oidc(json!({}));
    assert_eq!(authorize(&auth, "/auth/signin/corp", &[("accept-language", "pt-PT, en;q=0.5")]), ["pt-BR"]);
    assert_eq!(authorize(&auth, "/auth/signin/corp?locale=ja", &[]), ["ja"]);
    assert!(authorize(&auth, "/auth/signin/corp", &[]).is_empty());
    assert!(authorize(&auth, "/auth/signin/corp", &[("accept-language", "tlh")]).is_empty());
    // The sign-in page's button carries a chosen language to the POST.
    let (_, page) = get(&auth, "/auth/signin?locale=ko", &[]);
    assert!(page.contains(r#"action="http://localhost:3000/auth/signin/corp?locale=ko""#));
    let fixed =
        oidc(json!({ "authorization": { "url": "https://sso.example/auth", "params": { "ui_locales": "de" } } }));
    assert_eq!(authorize(&fixed, "/auth/signin/corp", &[("accept-language", "fr")]), ["de"]);
}

/// A language picked with `?locale` survives the engine's redirects back to
/// its own pages: a refused password, a CSRF failure (the error page), the
/// email's verify-request page, the error page's sign-in link.
#[test]
fn an_explicit_locale_is_kept_on_redirects_to_the_engines_own_pages() {
    let auth = engine(Arc::default(), Value::Null);
    let mut b = Browser::new(&auth);
    // The sign-in page's credentials form posts with the locale.
    let page = b.get("/auth/signin?locale=fr");
    assert!(
        page.body_str().contains(r#"action="http://localhost:3000/auth/callback/credentials?locale=fr""#),
        "{}",
        page.body_str()
    );
    let csrf = b.csrf();
    let res = b.post(
        "/auth/callback/credentials?locale=fr",
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "wrong")],
    );
    assert_eq!(res.status, 302);
    let back = location(&res).to_owned();
    let url = url::Url::parse(&back).unwrap();
    assert_eq!(url.path(), "/auth/signin");
    let pairs: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    assert!(pairs.contains(&("error".into(), "CredentialsSignin".into())), "{back}");
    assert!(pairs.contains(&("locale".into(), "fr".into())), "{back}");
    // Followed, the page is in French, with French's message for the error.
    let fr = Catalogues::new(&I18nConfig::default()).unwrap();
    let fr = fr.negotiate(Some("fr"), None, None);
    let html = b.get(back.strip_prefix("http://localhost:3000").unwrap()).body_str().to_owned();
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"fr\">"), "{html}");
    assert!(html.contains(&escaped(&fr.text("signin-error-credentials"))));

    // Without ?locale nothing is added (Auth.js's URL, byte for byte).
    let csrf = b.csrf();
    let res = b.post("/auth/callback/credentials", &[("csrfToken", &csrf), ("username", "ada"), ("password", "wrong")]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials");
    // A tag that is not offered is not carried on; an offered one is
    // written as the engine writes it.
    let res = b.post(
        "/auth/callback/credentials?locale=xx",
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "wrong")],
    );
    assert!(!location(&res).contains("locale"), "{}", location(&res));
    let res = b.post(
        "/auth/callback/credentials?locale=PT_br",
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "wrong")],
    );
    assert!(location(&res).ends_with("&locale=pt-BR"), "{}", location(&res));

    // A missing CSRF token sends to the error page... in the same language.
    let res = b.post("/auth/signout?locale=ja", &[("csrfToken", "forged")]);
    assert_eq!(res.status, 302);
    assert!(location(&res).contains("locale=ja"), "{}", location(&res));
    // The email's verify-request page.
    let csrf = b.csrf();
    let res = b.post("/auth/signin/email?locale=de", &[("csrfToken", &csrf), ("email", "ada@example.com")]);
    assert_eq!(location(&res), "http://localhost:3000/auth/verify-request?provider=email&type=email&locale=de");
    // A sign-in POST without a provider, and with a provider that signs in
    // on the page, back to the page.
    let csrf = b.csrf();
    let res = b.post("/auth/signin/credentials?locale=ko", &[("csrfToken", &csrf)]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?locale=ko");
    // The error page's sign-in link, the sign-out page's form.
    let html = b.get("/auth/error?error=Verification&locale=he").body_str().to_owned();
    assert!(html.contains(r#"href="http://localhost:3000/auth/signin?locale=he""#), "{html}");
    let html = b.get("/auth/signout?locale=it").body_str().to_owned();
    assert!(html.contains(r#"action="http://localhost:3000/auth/signout?locale=it""#), "{html}");
}

/// The `message` of the JSON answers a user may be shown (500, 503, 429)
/// follows the request's language; the machine-readable `error` does not,
/// and English stays Auth.js's text.
#[test]
fn json_messages_an_api_caller_shows_are_in_the_requests_language() {
    let catalogues = Catalogues::new(&I18nConfig::default()).unwrap();
    let text = |tag: &str, id: &str| catalogues.negotiate(Some(tag), None, None).text(id);
    // 429 for an API caller.
    let auth = common::auth(json!({ "rateLimit": { "credentials": { "max": 1 } } }), hooks());
    let mut b = Browser::new(&auth);
    b.extra_headers = vec![("accept".into(), "application/json".into()), ("accept-language".into(), "ja".into())];
    let mut last = None;
    for _ in 0..3 {
        let csrf = b.csrf();
        last =
            Some(b.post("/auth/callback/credentials", &[("csrfToken", &csrf), ("username", "x"), ("password", "y")]));
    }
    let res = last.unwrap();
    assert_eq!(res.status, 429);
    let body = res.json().unwrap();
    assert_eq!(body["error"], "RateLimited");
    assert_eq!(body["message"], text("ja", "api-rate-limited"));
    assert_ne!(body["message"], text("en", "api-rate-limited"));

    // 503 past `hooks.maxInFlight`, answered before any route.
    let auth = common::auth(json!({ "hooks": { "maxInFlight": 1 } }), hooks());
    let held = place(&auth).expect("a place");
    let busy = |url: &str, headers: &[(&str, &str)]| {
        let mut req = libauth_core::AuthRequest::post_form(url, &[("username", "ada")]);
        req.headers.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        match auth.admit(libauth_core::Work::Request(&req)) {
            libauth_core::Admission::Answered(res) => res,
            _ => panic!("past the bound a request is answered"),
        }
    };
    let res = busy("http://localhost:3000/auth/callback/credentials?locale=de", &[]);
    assert_eq!(res.status, 503);
    assert_eq!(res.json().unwrap()["message"], text("de", "api-overloaded"));
    let res = busy("http://localhost:3000/auth/callback/credentials", &[("accept-language", "ko")]);
    assert_eq!(res.json().unwrap()["message"], text("ko", "api-overloaded"));
    let res = busy("http://localhost:3000/auth/callback/credentials", &[]);
    assert_eq!(res.json().unwrap()["message"], "The server is busy. Try again in a moment.");
    drop(held);

    // 500 for a configuration problem found per request (an untrusted host).
    let config = Config::from_value(json!({ "secret": SECRET })).unwrap();
    let untrusted = Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap();
    let mut b = Browser::new(&untrusted);
    let res = b.post("/auth/signin?locale=ar", &[]);
    assert_eq!(res.status, 500);
    assert_eq!(res.json().unwrap()["message"], text("ar", "api-configuration"));
    let res = b.post("/auth/signin", &[]);
    assert_eq!(
        res.json().unwrap()["message"],
        "There was a problem with the server configuration. Check the server logs for more information."
    );
}

/// A built-in provider's default name is a word and is translated (its
/// section's label and its button); a configured name is kept, brands too.
#[test]
fn default_provider_names_are_translated_and_configured_ones_kept() {
    let auth = engine(Arc::default(), all_locales());
    let catalogues = Catalogues::new(&serde_json::from_value(all_locales()).unwrap()).unwrap();
    for locale in LOCALES {
        let t = catalogues.negotiate(Some(locale.tag), None, None);
        let (_, html) = get(&auth, &format!("/auth/signin?locale={}", locale.tag), &[]);
        // The fixture's credentials and passkey providers have no name;
        // its email provider is named "Magic link".
        for (name, label) in
            [("provider-credentials", "signin-with-credentials"), ("provider-passkey", "signin-with-passkey")]
        {
            assert!(html.contains(&format!("aria-label=\"{}\"", escaped(&t.text(name)))), "{} {name}", locale.tag);
            assert!(html.contains(&format!(">{}</button>", escaped(&t.text(label)))), "{} {label}", locale.tag);
        }
        assert!(html.contains("aria-label=\"Magic link\""), "{}", locale.tag);
        assert!(html.contains(&escaped(&t.text_with("signin-with", &[("provider", "Magic link")]))), "{}", locale.tag);
        assert!(html.contains("aria-label=\"GitHub\""), "{}", locale.tag);
    }
    let (_, ja) = get(&auth, "/auth/signin?locale=ja", &[]);
    assert!(ja.contains(">パスキーでサインイン</button>"), "{ja}");
    assert!(!without_script(&ja).contains("Passkey"), "{ja}");
    // English is unchanged.
    let (_, en) = get(&auth, "/auth/signin", &[]);
    assert!(en.contains("aria-label=\"Credentials\"") && en.contains(">Sign in with Credentials</button>"));
    assert!(en.contains("aria-label=\"Passkey\"") && en.contains(">Sign in with Passkey</button>"));
    // The API keeps the configured (or default) name.
    let mut b = Browser::new(&auth);
    b.extra_headers = vec![("accept-language".into(), "fr".into())];
    let providers = b.get("/auth/providers").json().unwrap();
    assert_eq!(providers["passkey"]["name"], "Passkey");
}

/// Every step of the resolution, in the default order: `locale` query,
/// `locale` cookie, the signed-in user's stored locale (here a JWT session
/// whose `jwt` callback stored the user's `locale`), the request's own
/// `ui_locales`, `Accept-Language`, the default; and an order of one's own.
#[test]
fn each_resolution_step_in_order_the_users_locale_and_ui_locales() {
    let build = |resolve: Value| {
        let hooks = hooks().on("callbacks.jwt", |args| {
            let mut token = args["token"].clone();
            if args["trigger"] == "signIn" {
                token["locale"] = json!("ja");
            }
            Ok(token)
        });
        common::auth(json!({ "i18n": { "resolve": resolve, "defaultLocale": "nl" } }), hooks)
    };
    let auth = build(Value::Null);
    let mut signed_in = Browser::new(&auth);
    let csrf = signed_in.csrf();
    let res = signed_in
        .post("/auth/callback/credentials", &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret")]);
    assert_eq!(res.status, 302);
    assert!(signed_in.jar.keys().any(|k| k.contains("session-token")), "signed in");
    let lang = |b: &mut Browser, path: &str, headers: &[(&str, &str)]| {
        b.extra_headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let html = b.get(path).body_str().to_owned();
        html.split('"').nth(1).unwrap().to_owned()
    };
    let header = ("accept-language", "de");
    let b = &mut signed_in;
    assert_eq!(lang(b, "/auth/signin?locale=fr&ui_locales=ko", &[header]), "fr");
    assert_eq!(lang(b, "/auth/signin?ui_locales=ko", &[header, ("cookie", "locale=es")]), "es");
    assert_eq!(lang(b, "/auth/signin?ui_locales=ko", &[header]), "ja", "the user's locale before ui_locales");
    assert_eq!(lang(b, "/auth/signout", &[]), "ja");
    let mut anonymous = Browser::new(&auth);
    let b = &mut anonymous;
    assert_eq!(lang(b, "/auth/signin?ui_locales=tlh%20ko-KR%20fr", &[header]), "ko", "the first offered of the list");
    assert_eq!(lang(b, "/auth/signin?ui_locales=tlh+fr", &[header]), "fr");
    assert_eq!(lang(b, "/auth/signin?ui_locales=tlh", &[header]), "de");
    assert_eq!(lang(b, "/auth/signin?ui_locales=%3Cscript%3E", &[]), "nl");
    // A chosen order: the header first, the user's locale not read at all.
    let auth = build(json!(["acceptLanguage", "uiLocales", "query"]));
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    b.post("/auth/callback/credentials", &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret")]);
    assert_eq!(lang(&mut b, "/auth/signin?locale=fr&ui_locales=ko", &[header]), "de");
    assert_eq!(lang(&mut b, "/auth/signin?locale=fr&ui_locales=ko", &[]), "ko");
    assert_eq!(lang(&mut b, "/auth/signin?locale=fr", &[("cookie", "locale=es")]), "fr", "no cookie step");
    assert_eq!(lang(&mut b, "/auth/signin", &[]), "nl", "no user step");
    // The option is checked, naming the entry.
    let build = |resolve: Value| {
        let config = Config::from_value(json!({ "secret": SECRET, "i18n": { "resolve": resolve } }))?;
        Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).map(|_| ())
    };
    let err = build(json!(["query", "acceptLanguages"])).unwrap_err();
    assert_eq!(err.option, "i18n.resolve[1]");
    assert!(err.message.contains("acceptLanguage") && err.message.contains("uiLocales"), "{}", err.message);
    assert_eq!(build(json!(["user", "user"])).unwrap_err().option, "i18n.resolve[1]");
    assert_eq!(build(json!([])).unwrap_err().option, "i18n.resolve");
    assert!(build(json!("query")).is_err());
}

/// The `user` step with the SQLite adapter and database sessions: the
/// adapter stores the user's `locale` (schema version 4), so a signed-in
/// user whose locale is `fr` gets the sign-in page in French with nothing
/// else naming a language (no query, cookie, `ui_locales` or
/// `Accept-Language`); a change of the stored locale is followed.
#[test]
fn the_user_step_reads_the_locale_the_sqlite_adapter_stores() {
    use libauth_core::store::{from_config, AdapterSession, NewUser, UserUpdate};
    let file = temp_db_path();
    let adapter_config = json!({ "type": "sqlite", "path": file.0 });
    let auth = common::auth(json!({ "adapter": adapter_config, "session": { "strategy": "database" } }), hooks());
    let db = from_config(&adapter_config, Arc::new(libauth_core::NoHooks)).unwrap();
    let user = db
        .create_user(&NewUser {
            email: Some("ada@example.com".into()),
            locale: Some("fr".into()),
            ..Default::default()
        })
        .unwrap();
    let raw = "a-session-token-of-forty-or-more-characters-000000";
    db.create_session(&AdapterSession {
        session_token: libauth_core::session::stored_session_token(raw),
        user_id: user.id.clone(),
        expires: libauth_core::time::now_millis() as i64 + 3_600_000,
    })
    .unwrap();
    let signin = |cookie: Option<&str>| {
        let mut req = libauth_core::AuthRequest::get("http://localhost:3000/auth/signin");
        if let Some(cookie) = cookie {
            req.headers.push(("cookie".into(), cookie.into()));
        }
        let res = auth.handle(&req);
        assert_eq!(res.status, 200);
        String::from_utf8(res.body).unwrap()
    };
    let session = format!("authjs.session-token={raw}");
    let french = Catalogues::new(&serde_json::from_value(json!({})).unwrap()).unwrap();
    let french = french.negotiate(Some("fr"), None, None);
    let html = signin(Some(&session));
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"fr\">"), "{html}");
    assert!(html.contains(&escaped(&french.text("signin-heading"))), "the French texts: {html}");
    assert!(signin(None).starts_with("<!DOCTYPE html>\n<html lang=\"en\">"), "signed out: the default");
    let update = UserUpdate { id: user.id, locale: Some(Some("ja".into())), ..Default::default() };
    db.update_user(&update).unwrap();
    assert!(signin(Some(&session)).starts_with("<!DOCTYPE html>\n<html lang=\"ja\">"), "the stored locale is read");
}

/// With the `user` step, a page that would read a database session is
/// not answered inline past `hooks.maxInFlight` (it may block on I/O); one
/// without a session cookie still is.
#[test]
fn a_page_reading_the_users_locale_is_admitted_like_a_session_read() {
    let auth = common::auth(
        json!({ "hooks": { "maxInFlight": 1 }, "adapter": { "type": "memory" }, "session": { "strategy": "database" } }),
        hooks(),
    );
    let plain = libauth_core::AuthRequest::get("http://localhost:3000/auth/signin");
    assert!(answered_inline(&auth, &plain).is_some());
    let mut with_session = libauth_core::AuthRequest::get("http://localhost:3000/auth/signin");
    with_session.headers.push(("cookie".into(), "authjs.session-token=x".into()));
    assert!(answered_inline(&auth, &with_session).is_none());
    let without_user = common::auth(
        json!({ "hooks": { "maxInFlight": 1 }, "adapter": { "type": "memory" }, "session": { "strategy": "database" },
                "i18n": { "resolve": ["query", "acceptLanguage"] } }),
        hooks(),
    );
    assert!(answered_inline(&without_user, &with_session).is_some());
}

/// Google's own `hl` goes with `ui_locales` when the request named a
/// locale, never over `authorization.params`; providers documenting no
/// language parameter (TikTok, GitHub) get none.
#[test]
fn google_gets_hl_and_providers_without_a_documented_parameter_get_none() {
    let build = |provider: Value| {
        let config =
            Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [provider] })).unwrap();
        Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap()
    };
    let authorize = |auth: &Auth, path: &str, headers: &[(&str, &str)]| {
        let mut b = Browser::new(auth);
        b.extra_headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let csrf = b.csrf();
        let res = b.post(path, &[("csrfToken", &csrf)]);
        assert_eq!(res.status, 302, "{}", res.body_str());
        let url = url::Url::parse(location(&res)).unwrap();
        url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect::<Vec<_>>()
    };
    let values = |pairs: &[(String, String)], name: &str| {
        pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.clone()).collect::<Vec<_>>()
    };
    let endpoints = json!({ "builtin": "google", "clientId": "c", "clientSecret": "s",
        "authorization": "https://accounts.google.com/o/oauth2/v2/auth", "token": "https://oauth2.googleapis.com/token",
        "jwksUri": "https://www.googleapis.com/oauth2/v3/certs" });
    let google = build(endpoints.clone());
    let q = authorize(&google, "/auth/signin/google?locale=ja", &[]);
    assert_eq!(values(&q, "hl"), ["ja"]);
    assert_eq!(values(&q, "ui_locales"), ["ja"]);
    let q = authorize(&google, "/auth/signin/google", &[("accept-language", "pt-PT")]);
    assert_eq!(values(&q, "hl"), ["pt-BR"]);
    let q = authorize(&google, "/auth/signin/google", &[]);
    assert!(values(&q, "hl").is_empty() && values(&q, "ui_locales").is_empty(), "{q:?}");
    // The configuration's own `hl` stands.
    let mut fixed = endpoints;
    fixed["authorization"] =
        json!({ "url": "https://accounts.google.com/o/oauth2/v2/auth", "params": { "hl": "de", "scope": "openid" } });
    let q = authorize(&build(fixed), "/auth/signin/google?locale=ja", &[]);
    assert_eq!(values(&q, "hl"), ["de"]);
    assert_eq!(values(&q, "ui_locales"), ["ja"]);

    // TikTok's Login Kit documents no language parameter; GitHub neither.
    let tiktok = build(json!({ "builtin": "tiktok", "clientId": "k", "clientSecret": "s" }));
    let q = authorize(&tiktok, "/auth/signin/tiktok?locale=ja", &[]);
    assert!(q.iter().any(|(k, _)| k == "client_key"), "{q:?}");
    assert!(q.iter().all(|(k, v)| v != "ja" && !["lang", "hl", "ui_locales"].contains(&k.as_str())), "{q:?}");
    let github = build(json!({ "builtin": "github", "clientId": "c", "clientSecret": "s" }));
    let q = authorize(&github, "/auth/signin/github?locale=ja", &[]);
    assert!(q.iter().all(|(_, v)| v != "ja"), "{q:?}");
}

/// The passkey module's messages come with the page, in its language (the
/// form's `data-webauthn-messages`), every key of the module's; in the
/// pseudo-locale none is English. The page's script, and so the hash its
/// CSP allows, is the same in every language.
#[test]
fn the_passkey_modules_messages_come_with_the_page_in_its_language() {
    let auth = engine(Arc::default(), all_locales());
    let catalogues = Catalogues::new(&serde_json::from_value(all_locales()).unwrap()).unwrap();
    let keys = [
        ("NotAllowedError", "passkey-error-cancelled"),
        ("InvalidStateError", "passkey-error-already-registered"),
        ("NotSupportedError", "passkey-error-unsupported"),
        ("SecurityError", "passkey-error-insecure"),
        ("WebAuthnVerificationError", "passkey-error-unverified"),
        ("AccountNotLinked", "passkey-error-account-exists"),
        ("ipAddress", "passkey-error-ip-address"),
        ("useLocalhost", "passkey-error-use-localhost"),
        ("failed", "passkey-error-failed"),
    ];
    // The module's own English defaults, keyed alike.
    let module = libauth_core::pages::WEBAUTHN_MODULE;
    for (key, _) in &keys {
        assert!(module.contains(&format!("  {key}:")), "the module has no message {key}");
    }
    let messages_of = |html: &str| passkey_messages_of(html).expect("the passkey form carries its messages").1;
    let mut csp = None;
    let english = catalogues.negotiate(Some("en"), None, None);
    for locale in LOCALES {
        let mut b = Browser::new(&auth);
        let res = b.get(&format!("/auth/signin?locale={}", locale.tag));
        let policy = res.header("content-security-policy").unwrap().to_owned();
        assert_eq!(csp.get_or_insert_with(|| policy.clone()), &policy, "{}: the same script hash", locale.tag);
        let got = messages_of(res.body_str());
        assert_eq!(got.len(), keys.len(), "{}", locale.tag);
        let t = catalogues.negotiate(Some(locale.tag), None, None);
        for (key, id) in &keys {
            let expected = t.text_with(id, &[("url", "{url}"), ("error", "{error}")]);
            assert_eq!(got[*key], expected, "{} {key}", locale.tag);
            if *key == "useLocalhost" {
                assert!(expected.contains("{url}"), "{} {key}: {expected}", locale.tag);
            }
            if *key == "failed" {
                assert!(expected.contains("{error}"), "{} {key}: {expected}", locale.tag);
            }
            if locale.tag != "en" {
                let en = english.text_with(id, &[("url", "{url}"), ("error", "{error}")]);
                assert_ne!(expected, en, "{} {key} is English", locale.tag);
            }
        }
    }
    // English is the module's own text.
    let (_, en) = get(&auth, "/auth/signin", &[]);
    let en = messages_of(&en);
    assert_eq!(en["NotAllowedError"], "The passkey request was cancelled or timed out.");
    assert_eq!(en["useLocalhost"], "Passkeys need a name, not an IP address: open {url} instead.");
    assert!(module.contains(r#"useLocalhost: "Passkeys need a name, not an IP address: open {url} instead.""#));
    assert!(module.contains(r#"NotAllowedError: "The passkey request was cancelled or timed out.""#));
}

/// An application's own locale: every page renders in it (with `lang`, and
/// `dir="rtl"` for a right-to-left language), the email is in it, and a
/// partial catalogue is refused naming the missing message.
#[test]
fn an_applications_own_locale_renders_every_page() {
    let whole = |prefix: &str| -> serde_json::Map<String, Value> {
        let en = i18n::catalogue_source("en").unwrap();
        en.lines()
            .filter(|l| !l.starts_with('#') && l.contains(" = "))
            .map(|l| {
                let (id, text) = l.split_once(" = ").unwrap();
                (id.to_owned(), json!(format!("{prefix}{text}")))
            })
            .collect()
    };
    let mailed = Arc::new(Mutex::new(Vec::new()));
    let auth = engine(mailed.clone(), json!({ "messages": { "sv": whole("Svenska: "), "fa": whole("فارسی: ") } }));
    for (path, status) in PAGES {
        let sep = if path.contains('?') { '&' } else { '?' };
        let (got, html) = get(&auth, &format!("{path}{sep}locale=sv"), &[]);
        assert_eq!(got, *status, "{path}");
        assert!(html.contains(r#"<html lang="sv""#), "{path}");
        assert!(html.contains("Svenska: "), "{path}");
        let (_, html) = get(&auth, path, &[("accept-language", "fa-IR,fa;q=0.9")]);
        assert!(html.contains(r#"lang="fa" dir="rtl""#), "{path}: {}", &html[..200.min(html.len())]);
    }
    let err = Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "providers": [],
        "i18n": { "messages": { "sv": { "signin-heading": "Logga in" } } },
    }))
    .and_then(|c| Auth::with_env(c, Arc::new(HookMap::new()), &std::collections::HashMap::new()))
    .err()
    .expect("a partial catalogue is refused");
    assert!(err.option.starts_with("i18n.messages.sv."), "{}", err.option);
    assert!(err.message.contains("missing"), "{}", err.message);
}
