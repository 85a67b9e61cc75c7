//! The built-in pages' and the sign-in email's texts in the user's
//! language.
//!
//! Catalogues are Fluent files compiled into the engine
//! (`core/locales/<tag>/pages.ftl`); English is the reference, and every
//! other catalogue has exactly its messages. The configuration
//! (`i18n: { defaultLocale, locales, messages }`) picks the default, narrows
//! the locales offered, overrides single messages, and adds locales of the
//! application's own: `messages` for a tag the engine has no catalogue for
//! is a whole catalogue, every message given.
//!
//! A request's locale comes from, in the order of `i18n.resolve` (by
//! default this one): the `locale` query parameter, the `locale` cookie,
//! the signed-in user's stored locale, the `ui_locales` query parameter,
//! `Accept-Language`; then `i18n.defaultLocale`. Every one of them is
//! matched against the allow-list only (nothing from the request reaches a
//! page except through a catalogue entry), and `ui_locales` and
//! `Accept-Language` are parsed within fixed bounds.

use std::borrow::Cow;
use std::collections::BTreeMap;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use serde::Deserialize;
use unic_langid::LanguageIdentifier;

use crate::error::ConfigError;

/// The `i18n` option.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct I18nConfig {
    /// The locale when the request names none that is offered; `en` when absent.
    pub default_locale: Option<String>,
    /// The locales offered (tags from [`LOCALES`]); all of them when absent.
    pub locales: Option<Vec<String>>,
    /// Per-locale message overrides: `{ "fr": { "signin-heading": "Bienvenue" } }`;
    /// for a tag with no built-in catalogue (`sv`), every message: a locale
    /// of the application's own.
    #[serde(default)]
    pub messages: BTreeMap<String, BTreeMap<String, String>>,
    /// The resolution steps, in order (names from [`STEPS`]); all of them,
    /// in that order, when absent. The default locale always comes last.
    pub resolve: Option<Vec<String>>,
}

/// One step of a request's locale resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The `locale` query parameter.
    Query,
    /// The `locale` cookie.
    Cookie,
    /// The signed-in user's stored `locale`.
    User,
    /// The request's own OpenID Connect `ui_locales` query parameter (a
    /// space-separated list, in order of preference).
    UiLocales,
    /// `Accept-Language`, by q-value.
    AcceptLanguage,
}

/// The steps by their configuration names, in the default order.
pub const STEPS: &[(&str, Step)] = &[
    ("query", Step::Query),
    ("cookie", Step::Cookie),
    ("user", Step::User),
    ("uiLocales", Step::UiLocales),
    ("acceptLanguage", Step::AcceptLanguage),
];

/// The longest `ui_locales` read (bytes), and the tags of it considered.
pub const MAX_UI_LOCALES_BYTES: usize = 1024;
pub const MAX_UI_LOCALES_TAGS: usize = 16;

/// A request's inputs to the resolution (all attacker-controlled but the
/// user's stored locale, which [`Catalogues::resolve`] asks for only when
/// the steps before it named nothing offered).
#[derive(Debug, Default, Clone, Copy)]
pub struct LocaleInputs<'a> {
    pub query: Option<&'a str>,
    pub cookie: Option<&'a str>,
    pub ui_locales: Option<&'a str>,
    pub accept_language: Option<&'a str>,
}

/// A locale the engine has a catalogue for.
pub struct BuiltInLocale {
    /// The BCP 47 tag, as written in `<html lang>` and the configuration.
    pub tag: &'static str,
    /// Written right to left: pages get `dir="rtl"`.
    pub rtl: bool,
    /// The Fluent catalogue; `None` for the pseudo-locale, which is English
    /// transformed.
    source: Option<&'static str>,
}

const ENGLISH: &str = include_str!("../locales/en/pages.ftl");

/// The pseudo-locale: English, accented and lengthened, so that a string
/// the catalogues miss (still hard-coded in English) stands out. Offered
/// only when `i18n.locales` names it.
pub const PSEUDO_LOCALE: &str = "en-XA";

/// Every built-in locale. The first is the reference and the default.
pub const LOCALES: &[BuiltInLocale] = &[
    BuiltInLocale { tag: "en", rtl: false, source: Some(ENGLISH) },
    BuiltInLocale { tag: "fr", rtl: false, source: Some(include_str!("../locales/fr/pages.ftl")) },
    BuiltInLocale { tag: "de", rtl: false, source: Some(include_str!("../locales/de/pages.ftl")) },
    BuiltInLocale { tag: "es", rtl: false, source: Some(include_str!("../locales/es/pages.ftl")) },
    BuiltInLocale { tag: "pt-BR", rtl: false, source: Some(include_str!("../locales/pt-BR/pages.ftl")) },
    BuiltInLocale { tag: "it", rtl: false, source: Some(include_str!("../locales/it/pages.ftl")) },
    BuiltInLocale { tag: "nl", rtl: false, source: Some(include_str!("../locales/nl/pages.ftl")) },
    BuiltInLocale { tag: "pl", rtl: false, source: Some(include_str!("../locales/pl/pages.ftl")) },
    BuiltInLocale { tag: "ja", rtl: false, source: Some(include_str!("../locales/ja/pages.ftl")) },
    BuiltInLocale { tag: "zh-CN", rtl: false, source: Some(include_str!("../locales/zh-CN/pages.ftl")) },
    BuiltInLocale { tag: "ko", rtl: false, source: Some(include_str!("../locales/ko/pages.ftl")) },
    BuiltInLocale { tag: "ar", rtl: true, source: Some(include_str!("../locales/ar/pages.ftl")) },
    BuiltInLocale { tag: "he", rtl: true, source: Some(include_str!("../locales/he/pages.ftl")) },
    BuiltInLocale { tag: PSEUDO_LOCALE, rtl: false, source: None },
];

/// The placeables a message may use, with a sample value each: an override
/// is formatted with them at startup, so a misspelt `{ $hots }` is refused
/// then rather than shown to users.
const ARGUMENTS: &[(&str, &str)] = &[
    ("provider", "GitHub"),
    ("host", "example.com"),
    ("url", "http://localhost:3000/auth/signin"),
    ("error", "UnknownError"),
    ("email", "ada@example.com"),
    ("min", "8"),
    ("max", "256"),
    ("ip", "203.0.113.0/24"),
    ("when", "2026-11-28 22:10 UTC"),
    ("count", "8"),
];

/// The cookie a host's own pages may set to remember a visitor's choice.
pub const LOCALE_COOKIE: &str = "locale";

/// The longest override text accepted (characters).
const MAX_OVERRIDE_CHARS: usize = 1000;

/// `Accept-Language` bounds: bytes read, and language ranges considered.
pub const MAX_ACCEPT_LANGUAGE_BYTES: usize = 1024;
pub const MAX_ACCEPT_LANGUAGE_RANGES: usize = 16;
/// The longest tag matched (BCP 47's longest useful tags are shorter).
const MAX_TAG_BYTES: usize = 35;

/// Languages written right to left (CLDR's character order for each), for
/// a locale the application adds: its pages get `dir="rtl"` by its language.
const RTL_LANGUAGES: &[&str] = &["ar", "he", "fa", "ur", "ps", "sd", "yi", "dv", "ug", "ckb", "syr", "arc", "nqo"];

/// A locale the application adds through `i18n.messages`: its tag as the
/// configuration writes it (well-formed, not a built-in one).
fn extra_tag(tag: &str) -> Option<String> {
    if tag.is_empty() || tag.len() > MAX_TAG_BYTES || !tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return None;
    }
    let id: LanguageIdentifier = tag.parse().ok()?;
    Some(id.to_string())
}

/// Whether a tag's language is written right to left.
fn is_rtl(tag: &str) -> bool {
    let language = tag.split('-').next().unwrap_or_default();
    RTL_LANGUAGES.iter().any(|l| l.eq_ignore_ascii_case(language))
}

/// The message ids of a Fluent source, in order.
pub fn message_ids(source: &str) -> Vec<String> {
    match FluentResource::try_new(source.to_owned()) {
        Ok(res) | Err((res, _)) => res
            .entries()
            .filter_map(|e| match e {
                fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
                _ => None,
            })
            .collect(),
    }
}

/// The built-in catalogue of `tag` (English for the pseudo-locale).
pub fn catalogue_source(tag: &str) -> Option<&'static str> {
    LOCALES.iter().find(|l| l.tag == tag).map(|l| l.source.unwrap_or(ENGLISH))
}

/// A locale `i18n` offers: built in, or the application's own (an index
/// into its `messages`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Offered {
    BuiltIn(&'static BuiltInLocale),
    Extra(usize),
}

impl PartialEq for BuiltInLocale {
    fn eq(&self, other: &Self) -> bool {
        self.tag == other.tag
    }
}
impl Eq for BuiltInLocale {}

struct Loaded {
    /// The tag as pages write it.
    tag: Box<str>,
    rtl: bool,
    bundle: FluentBundle<FluentResource>,
}

/// The catalogues an engine offers, built once from its configuration.
pub struct Catalogues {
    locales: Vec<Loaded>,
    /// Index into `locales`.
    default: usize,
    /// `i18n.resolve`.
    steps: Vec<Step>,
}

impl std::fmt::Debug for Catalogues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalogues")
            .field("locales", &self.locales.iter().map(|l| &*l.tag).collect::<Vec<_>>())
            .field("default", &self.locales[self.default].tag)
            .field("steps", &self.steps)
            .finish()
    }
}

/// A built-in locale's tag exactly as listed, matched case-insensitively
/// (`pt-br`, `zh_CN` are accepted in the configuration).
fn built_in(tag: &str) -> Option<&'static BuiltInLocale> {
    let tag = tag.replace('_', "-");
    LOCALES.iter().find(|l| l.tag.eq_ignore_ascii_case(&tag))
}

fn known_tags() -> String {
    LOCALES.iter().map(|l| l.tag).collect::<Vec<_>>().join(", ")
}

impl Catalogues {
    pub fn new(config: &I18nConfig) -> Result<Catalogues, ConfigError> {
        // The application's own locales: `messages` for a tag the engine
        // has no catalogue for. Each is a whole catalogue (checked below).
        let mut extras: Vec<(String, &BTreeMap<String, String>)> = Vec::new();
        for (tag, messages) in &config.messages {
            if built_in(tag).is_some() {
                continue;
            }
            let normalised = extra_tag(tag).ok_or_else(|| {
                ConfigError::new(
                    format!("i18n.messages.{tag}"),
                    format!(
                        "neither a built-in locale ({}) nor a well-formed language tag for a locale of your own",
                        known_tags()
                    ),
                )
            })?;
            extras.push((normalised, messages));
        }
        let known = |tag: &str| -> Option<Offered> {
            built_in(tag).map(Offered::BuiltIn).or_else(|| {
                let normalised = extra_tag(tag)?;
                extras.iter().position(|(t, _)| t.eq_ignore_ascii_case(&normalised)).map(Offered::Extra)
            })
        };
        let unknown =
            |tag: &str| format!("{tag:?} is not a built-in locale ({}) nor one given in `i18n.messages`", known_tags());
        let offered: Vec<Offered> = match &config.locales {
            None => LOCALES
                .iter()
                .filter(|l| l.tag != PSEUDO_LOCALE)
                .map(Offered::BuiltIn)
                .chain((0..extras.len()).map(Offered::Extra))
                .collect(),
            Some(list) => {
                if list.is_empty() {
                    return Err(ConfigError::new("i18n.locales", "must list at least one locale"));
                }
                let mut offered = Vec::new();
                for (i, tag) in list.iter().enumerate() {
                    let locale =
                        known(tag).ok_or_else(|| ConfigError::new(format!("i18n.locales[{i}]"), unknown(tag)))?;
                    if !offered.contains(&locale) {
                        offered.push(locale);
                    }
                }
                offered
            }
        };
        let tag_of = |o: &Offered| match o {
            Offered::BuiltIn(l) => l.tag.to_owned(),
            Offered::Extra(i) => extras[*i].0.clone(),
        };
        let default_tag = match &config.default_locale {
            None => offered.iter().map(tag_of).find(|t| t == "en").unwrap_or_else(|| tag_of(&offered[0])),
            Some(tag) => {
                let locale = known(tag).ok_or_else(|| ConfigError::new("i18n.defaultLocale", unknown(tag)))?;
                if !offered.contains(&locale) {
                    return Err(ConfigError::new("i18n.defaultLocale", format!("{tag:?} is not in `i18n.locales`")));
                }
                tag_of(&locale)
            }
        };
        for tag in config.messages.keys() {
            let option = format!("i18n.messages.{tag}");
            let locale = known(tag).ok_or_else(|| ConfigError::new(option.clone(), unknown(tag)))?;
            if !offered.contains(&locale) {
                return Err(ConfigError::new(option, "overrides a locale that `i18n.locales` does not offer"));
            }
        }
        let steps = match &config.resolve {
            None => STEPS.iter().map(|(_, step)| *step).collect(),
            Some(list) => {
                if list.is_empty() {
                    return Err(ConfigError::new("i18n.resolve", "must list at least one step"));
                }
                let names = STEPS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ");
                let mut steps = Vec::new();
                for (i, name) in list.iter().enumerate() {
                    let step = STEPS.iter().find(|(n, _)| n == name).map(|(_, s)| *s).ok_or_else(|| {
                        ConfigError::new(
                            format!("i18n.resolve[{i}]"),
                            format!("{name:?} is not a resolution step; the steps are: {names}"),
                        )
                    })?;
                    if steps.contains(&step) {
                        return Err(ConfigError::new(
                            format!("i18n.resolve[{i}]"),
                            format!("{name:?} is listed twice"),
                        ));
                    }
                    steps.push(step);
                }
                steps
            }
        };
        let english_ids = message_ids(ENGLISH);
        let mut locales = Vec::with_capacity(offered.len());
        for locale in &offered {
            let loaded = match locale {
                Offered::BuiltIn(info) => {
                    let overrides = config
                        .messages
                        .iter()
                        .find(|(tag, _)| built_in(tag).is_some_and(|l| l.tag == info.tag))
                        .map(|(tag, messages)| (tag.as_str(), messages));
                    Loaded {
                        tag: info.tag.into(),
                        rtl: info.rtl,
                        bundle: build_bundle(info.tag, info.rtl, info.source, overrides, &english_ids)?,
                    }
                }
                Offered::Extra(i) => {
                    let (tag, messages) = &extras[*i];
                    let config_tag = config.messages.keys().find(|k| extra_tag(k).as_deref() == Some(tag.as_str()));
                    let config_tag = config_tag.map_or(tag.as_str(), String::as_str);
                    // A locale of the application's own has no English to
                    // fall back on: every message must be given.
                    if let Some(missing) = english_ids.iter().find(|id| !messages.contains_key(*id)) {
                        return Err(ConfigError::new(
                            format!("i18n.messages.{config_tag}.{missing}"),
                            format!(
                                "missing: a locale of your own gives every message ({} of them; the ids are in core/locales/en/pages.ftl)",
                                english_ids.len()
                            ),
                        ));
                    }
                    let rtl = is_rtl(tag);
                    Loaded {
                        tag: tag.as_str().into(),
                        rtl,
                        bundle: build_bundle(tag, rtl, None, Some((config_tag, messages)), &english_ids)?,
                    }
                }
            };
            locales.push(loaded);
        }
        let default = locales.iter().position(|l| *l.tag == *default_tag).unwrap_or(0);
        Ok(Catalogues { locales, default, steps })
    }

    /// The messages of the request's locale: the first of `query`, `cookie`
    /// and `accept_language` that names an offered locale, else the default.
    pub fn negotiate(&self, query: Option<&str>, cookie: Option<&str>, accept_language: Option<&str>) -> Messages<'_> {
        self.requested(query, cookie, accept_language).unwrap_or_else(|| self.default_messages())
    }

    /// As [`Catalogues::negotiate`], but `None` when the request names no
    /// offered locale (the default would apply).
    pub fn requested(
        &self,
        query: Option<&str>,
        cookie: Option<&str>,
        accept_language: Option<&str>,
    ) -> Option<Messages<'_>> {
        self.resolve(&LocaleInputs { query, cookie, ui_locales: None, accept_language }, || None)
    }

    /// The locale the request's inputs name, following `i18n.resolve`:
    /// the first step that names an offered locale wins; `None` when none
    /// does (the default applies). `user` gives the signed-in user's stored
    /// locale; it is called only when the steps before it found nothing.
    pub fn resolve(&self, inputs: &LocaleInputs<'_>, user: impl FnOnce() -> Option<String>) -> Option<Messages<'_>> {
        let mut user = Some(user);
        let index = self.steps.iter().find_map(|step| match step {
            Step::Query => inputs.query.and_then(|tag| self.find(tag)),
            Step::Cookie => inputs.cookie.and_then(|tag| self.find(tag)),
            Step::User => user.take().and_then(|f| f()).and_then(|tag| self.find(&tag)),
            Step::UiLocales => inputs.ui_locales.and_then(|list| parse_ui_locales(list).find_map(|tag| self.find(tag))),
            Step::AcceptLanguage => inputs
                .accept_language
                .and_then(|header| parse_accept_language(header).iter().find_map(|r| self.find(&r.tag))),
        })?;
        Some(Messages { locale: &self.locales[index] })
    }

    /// Whether resolution may ask for the signed-in user's locale.
    pub fn uses_user_locale(&self) -> bool {
        self.steps.contains(&Step::User)
    }

    /// The default locale's messages.
    pub fn default_messages(&self) -> Messages<'_> {
        Messages { locale: &self.locales[self.default] }
    }

    /// The offered locale a requested tag means: the same tag, else the
    /// locale of its language (`fr-CA` → `fr`, `pt` → `pt-BR`, `zh-Hans-SG` →
    /// `zh-CN`; Traditional Chinese gets no Simplified fallback). Anything
    /// that is not a well-formed tag matches nothing.
    fn find(&self, requested: &str) -> Option<usize> {
        if requested.is_empty()
            || requested.len() > MAX_TAG_BYTES
            || !requested.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return None;
        }
        let requested = requested.replace('_', "-");
        if let Some(i) = self.locales.iter().position(|l| l.tag.eq_ignore_ascii_case(&requested)) {
            return Some(i);
        }
        let mut subtags = requested.split('-');
        let language = subtags.next()?;
        if language.eq_ignore_ascii_case("zh")
            && subtags.any(|s| ["hant", "tw", "hk", "mo"].iter().any(|t| s.eq_ignore_ascii_case(t)))
        {
            return None;
        }
        self.locales.iter().position(|l| {
            &*l.tag != PSEUDO_LOCALE && l.tag.split('-').next().is_some_and(|p| p.eq_ignore_ascii_case(language))
        })
    }
}

/// A locale's bundle: its catalogue (`source`; English for the
/// pseudo-locale and for a locale of the application's own, whose
/// `overrides` then replace every message), then the overrides.
fn build_bundle(
    tag: &str,
    rtl: bool,
    source: Option<&'static str>,
    overrides: Option<(&str, &BTreeMap<String, String>)>,
    english_ids: &[String],
) -> Result<FluentBundle<FluentResource>, ConfigError> {
    let langid: LanguageIdentifier = tag.parse().expect("tags are checked well-formed");
    let mut bundle = FluentBundle::new_concurrent(vec![langid]);
    // Unicode isolation marks around placeables keep a left-to-right host
    // or provider name from reordering a right-to-left sentence; elsewhere
    // they are left out, so English output stays byte-identical to Auth.js's.
    bundle.set_use_isolating(rtl);
    if tag == PSEUDO_LOCALE {
        bundle.set_transform(Some(pseudo_localise));
    }
    let source = source.unwrap_or(ENGLISH);
    let resource = FluentResource::try_new(source.to_owned()).expect("built-in catalogues parse (tested)");
    bundle.add_resource(resource).expect("built-in catalogues have no duplicate ids (tested)");
    let Some((config_tag, messages)) = overrides else {
        return Ok(bundle);
    };
    for (id, text) in messages {
        let option = format!("i18n.messages.{config_tag}.{id}");
        if !english_ids.iter().any(|known| known == id) {
            return Err(ConfigError::new(option, "not a message of the built-in pages (see docs/i18n.md)"));
        }
        if text.trim().is_empty() || text.chars().count() > MAX_OVERRIDE_CHARS {
            return Err(ConfigError::new(option, format!("must be 1 to {MAX_OVERRIDE_CHARS} characters")));
        }
        if text.chars().any(|c| c.is_control() || c == EMAIL_PLACEHOLDER) {
            return Err(ConfigError::new(option, "must be one line without control characters"));
        }
        // One message per resource, so an override's text cannot define
        // another message: a `=` or newline trick fails to parse here.
        let resource = FluentResource::try_new(format!("{id} = {text}\n")).map_err(|(_, errors)| {
            ConfigError::new(
                option.clone(),
                format!("not valid Fluent text ({} error(s)); write a literal brace as {{\"{{\"}}", errors.len()),
            )
        })?;
        if resource.entries().count() != 1 {
            return Err(ConfigError::new(option, "must be the text of one message"));
        }
        bundle.add_resource_overriding(resource);
        // Format it once with every known placeable: an unknown one fails now.
        let mut errors = Vec::new();
        let args = sample_args();
        if let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) {
            let _ = bundle.format_pattern(pattern, Some(&args), &mut errors);
        }
        if !errors.is_empty() {
            return Err(ConfigError::new(
                option,
                format!("uses a placeable this message does not have (known: {})", placeable_names()),
            ));
        }
    }
    Ok(bundle)
}

fn sample_args() -> FluentArgs<'static> {
    let mut args = FluentArgs::new();
    for (name, value) in ARGUMENTS {
        args.set(*name, *value);
    }
    args
}

fn placeable_names() -> String {
    ARGUMENTS.iter().map(|(name, _)| format!("{{ ${name} }}")).collect::<Vec<_>>().join(", ")
}

/// A character no catalogue or override contains (overrides are checked):
/// the email's heading is formatted with it as `$host`, escaped, and the
/// marker then replaced by the host in `<strong>`.
pub(crate) const EMAIL_PLACEHOLDER: char = '\u{E000}';

/// One request's locale and its messages.
#[derive(Clone, Copy)]
pub struct Messages<'a> {
    locale: &'a Loaded,
}

impl<'a> Messages<'a> {
    /// The BCP 47 tag, for `<html lang>`.
    pub fn tag(&self) -> &'a str {
        &self.locale.tag
    }

    /// Written right to left.
    pub fn rtl(&self) -> bool {
        self.locale.rtl
    }

    /// The text of message `id`, without placeables.
    pub fn text(&self, id: &str) -> String {
        self.format(id, None)
    }

    /// The text of message `id` with its placeables.
    pub fn text_with(&self, id: &str, args: &[(&str, &str)]) -> String {
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, *value);
        }
        self.format(id, Some(&fluent_args))
    }

    fn format(&self, id: &str, args: Option<&FluentArgs<'_>>) -> String {
        let bundle = &self.locale.bundle;
        let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) else {
            // Only a typo in the engine's own ids gets here (every catalogue
            // has every id, tested): show the id rather than fail the page.
            debug_assert!(false, "no message {id}");
            return id.to_owned();
        };
        let mut errors = Vec::new();
        let text: Cow<'_, str> = bundle.format_pattern(pattern, args, &mut errors);
        text.into_owned()
    }
}

/// One `Accept-Language` range with its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct LanguageRange {
    pub tag: String,
    /// 0 to 1000 (the q-value times 1000).
    pub weight: u16,
}

/// The ranges of an `Accept-Language` header, highest weight first (ties in
/// header order), without `*` and weight-0 ranges. Only the first
/// [`MAX_ACCEPT_LANGUAGE_BYTES`] bytes and [`MAX_ACCEPT_LANGUAGE_RANGES`]
/// ranges are read; malformed ranges are skipped.
pub fn parse_accept_language(header: &str) -> Vec<LanguageRange> {
    let mut end = header.len().min(MAX_ACCEPT_LANGUAGE_BYTES);
    while !header.is_char_boundary(end) {
        end -= 1;
    }
    let mut ranges = Vec::new();
    for item in header[..end].split(',').take(MAX_ACCEPT_LANGUAGE_RANGES) {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or("").trim();
        if tag.is_empty() || tag == "*" || tag.len() > MAX_TAG_BYTES {
            continue;
        }
        if !tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            continue;
        }
        let mut weight = 1000;
        let mut valid = true;
        for param in parts {
            let param = param.trim();
            if let Some(q) = param.strip_prefix("q=").or_else(|| param.strip_prefix("Q=")) {
                match parse_qvalue(q) {
                    Some(w) => weight = w,
                    None => valid = false,
                }
            }
        }
        if valid && weight > 0 {
            ranges.push(LanguageRange { tag: tag.to_owned(), weight });
        }
    }
    // Stable: equal weights keep the header's order.
    ranges.sort_by_key(|r| std::cmp::Reverse(r.weight));
    ranges
}

/// The tags of an OpenID Connect `ui_locales` value, in order: separated
/// by spaces, the first [`MAX_UI_LOCALES_BYTES`] bytes and
/// [`MAX_UI_LOCALES_TAGS`] tags only.
pub fn parse_ui_locales(value: &str) -> impl Iterator<Item = &str> {
    let mut end = value.len().min(MAX_UI_LOCALES_BYTES);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    value[..end].split_ascii_whitespace().take(MAX_UI_LOCALES_TAGS)
}

/// RFC 9110's qvalue: `0`, `0.ddd`, `1`, `1.000`; thousandths.
fn parse_qvalue(q: &str) -> Option<u16> {
    let (int, frac) = q.split_once('.').unwrap_or((q, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut thousandths: u16 = 0;
    for (i, b) in frac.bytes().enumerate() {
        thousandths += u16::from(b - b'0') * [100, 10, 1][i];
    }
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// en-XA: Latin letters accented, vowels doubled (about a third longer,
/// as many languages run), so untranslated English is easy to spot and
/// layouts are tried with longer text.
fn pseudo_localise(text: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        let accented = match c {
            'a' => "àà",
            'e' => "éé",
            'i' => "îî",
            'o' => "öö",
            'u' => "üü",
            'y' => "ý",
            'c' => "ç",
            'n' => "ñ",
            's' => "š",
            'z' => "ž",
            'g' => "ĝ",
            'h' => "ĥ",
            'k' => "ķ",
            'l' => "ļ",
            'r' => "ŕ",
            't' => "ţ",
            'w' => "ŵ",
            'd' => "ď",
            'A' => "ÀÀ",
            'E' => "ÉÉ",
            'I' => "ÎÎ",
            'O' => "ÖÖ",
            'U' => "ÜÜ",
            'C' => "Ç",
            'N' => "Ñ",
            'S' => "Š",
            'T' => "Ţ",
            'R' => "Ŕ",
            'D' => "Ď",
            'H' => "Ĥ",
            'W' => "Ŵ",
            'G' => "Ĝ",
            'Y' => "Ý",
            'Z' => "Ž",
            'L' => "Ļ",
            'K' => "Ķ",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(accented);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_has_exactly_the_english_messages() {
        let english = message_ids(ENGLISH);
        assert!(english.len() > 30);
        for locale in LOCALES {
            let Some(source) = locale.source else { continue };
            let resource = FluentResource::try_new(source.to_owned());
            assert!(resource.is_ok(), "{} does not parse", locale.tag);
            let ids = message_ids(source);
            for id in &english {
                assert!(ids.contains(id), "{} lacks {id}", locale.tag);
            }
            for id in &ids {
                assert!(english.contains(id), "{} has {id}, which English lacks", locale.tag);
            }
            assert_eq!(ids.len(), english.len(), "{} has a duplicate id", locale.tag);
        }
    }

    /// A translation uses exactly English's placeables (a dropped
    /// `{ $provider }` would hide the provider's name), and is not empty.
    #[test]
    fn every_translation_keeps_the_english_placeables() {
        let all = Catalogues::new(&I18nConfig {
            locales: Some(LOCALES.iter().map(|l| l.tag.to_owned()).collect()),
            ..Default::default()
        })
        .unwrap();
        let args = [("provider", "\u{1}P"), ("host", "\u{1}H"), ("url", "\u{1}U"), ("error", "\u{1}E")];
        let english = all.negotiate(Some("en"), None, None);
        for locale in LOCALES {
            let messages = all.negotiate(Some(locale.tag), None, None);
            assert_eq!(messages.tag(), locale.tag);
            for id in message_ids(ENGLISH) {
                let text = messages.text_with(&id, &args);
                let reference = english.text_with(&id, &args);
                for marker in ["\u{1}P", "\u{1}H", "\u{1}U", "\u{1}E"] {
                    assert_eq!(
                        text.matches(marker).count(),
                        reference.matches(marker).count(),
                        "{} {id}: {text:?}",
                        locale.tag
                    );
                }
                assert!(!text.trim().is_empty(), "{} {id} is empty", locale.tag);
            }
        }
    }

    #[test]
    fn the_catalogue_check_fails_on_a_missing_or_extra_key() {
        let english = message_ids(ENGLISH);
        let missing = ENGLISH.replace("verify-text =", "# verify-text =");
        assert!(!message_ids(&missing).contains(&"verify-text".to_owned()));
        let extra = format!("{ENGLISH}\nextra-key = Extra\n");
        assert!(message_ids(&extra).iter().any(|id| !english.contains(id)));
    }

    #[test]
    fn negotiation_follows_query_cookie_header_default() {
        let c = Catalogues::new(&I18nConfig { default_locale: Some("de".into()), ..Default::default() }).unwrap();
        assert_eq!(c.negotiate(Some("fr"), Some("ja"), Some("es")).tag(), "fr");
        assert_eq!(c.negotiate(Some("xx"), Some("ja"), Some("es")).tag(), "ja");
        assert_eq!(c.negotiate(None, Some("<script>"), Some("es-MX;q=0.5, nl;q=0.9")).tag(), "nl");
        assert_eq!(c.negotiate(None, None, Some("zh-TW, *")).tag(), "de");
        assert_eq!(c.negotiate(None, None, Some("zh-Hans-SG")).tag(), "zh-CN");
        assert_eq!(c.negotiate(None, None, Some("pt")).tag(), "pt-BR");
        assert_eq!(c.negotiate(Some("PT_br"), None, None).tag(), "pt-BR");
        assert_eq!(c.negotiate(None, None, Some("en-XA")).tag(), "en");
        assert_eq!(c.negotiate(None, None, None).tag(), "de");
    }

    #[test]
    fn resolution_follows_the_configured_steps() {
        let c = Catalogues::new(&I18nConfig::default()).unwrap();
        let inputs = LocaleInputs {
            query: Some("fr"),
            cookie: Some("ja"),
            ui_locales: Some("xx ko es"),
            accept_language: Some("de"),
        };
        let tag = |c: &Catalogues, inputs: &LocaleInputs, user: Option<&str>| {
            c.resolve(inputs, || user.map(str::to_owned)).map(|m| m.tag().to_owned())
        };
        assert_eq!(tag(&c, &inputs, Some("it")).as_deref(), Some("fr"));
        let inputs = LocaleInputs { query: None, ..inputs };
        assert_eq!(tag(&c, &inputs, Some("it")).as_deref(), Some("ja"));
        let inputs = LocaleInputs { cookie: None, ..inputs };
        assert_eq!(tag(&c, &inputs, Some("it")).as_deref(), Some("it"));
        assert_eq!(tag(&c, &inputs, Some("tlh")).as_deref(), Some("ko"));
        let inputs = LocaleInputs { ui_locales: Some("tlh"), ..inputs };
        assert_eq!(tag(&c, &inputs, None).as_deref(), Some("de"));
        let inputs = LocaleInputs { accept_language: None, ..inputs };
        assert_eq!(tag(&c, &inputs, None), None);
        // The user is asked for only when the steps before it found nothing.
        let asked = std::cell::Cell::new(false);
        let found = c.resolve(&LocaleInputs { query: Some("fr"), ..Default::default() }, || {
            asked.set(true);
            None
        });
        assert_eq!(found.map(|m| m.tag()), Some("fr"));
        assert!(!asked.get());
        // Another order, and steps left out.
        let c = Catalogues::new(&I18nConfig {
            resolve: Some(vec!["acceptLanguage".into(), "query".into()]),
            ..Default::default()
        })
        .unwrap();
        let inputs =
            LocaleInputs { query: Some("fr"), cookie: Some("ja"), ui_locales: Some("ko"), accept_language: Some("de") };
        assert_eq!(tag(&c, &inputs, Some("it")).as_deref(), Some("de"));
        let inputs = LocaleInputs { accept_language: None, ..inputs };
        assert_eq!(tag(&c, &inputs, Some("it")).as_deref(), Some("fr"));
        let inputs = LocaleInputs { query: None, ..inputs };
        assert_eq!(tag(&c, &inputs, Some("it")), None);
        assert!(!c.uses_user_locale());
        // Checked, naming the option.
        for (resolve, option) in [
            (vec![], "i18n.resolve"),
            (vec!["query", "header"], "i18n.resolve[1]"),
            (vec!["cookie", "query", "cookie"], "i18n.resolve[2]"),
        ] {
            let config =
                I18nConfig { resolve: Some(resolve.iter().map(|s| s.to_string()).collect()), ..Default::default() };
            assert_eq!(Catalogues::new(&config).unwrap_err().option, option);
        }
    }

    #[test]
    fn ui_locales_are_bounded() {
        assert_eq!(parse_ui_locales("  fr-CA  ja ko ").collect::<Vec<_>>(), ["fr-CA", "ja", "ko"]);
        assert_eq!(parse_ui_locales("fr\tja").collect::<Vec<_>>(), ["fr", "ja"]);
        assert_eq!(parse_ui_locales(&"x ".repeat(10_000)).count(), MAX_UI_LOCALES_TAGS);
        let long = format!("{} fr", "x".repeat(MAX_UI_LOCALES_BYTES));
        assert_eq!(parse_ui_locales(&long).count(), 1);
    }

    #[test]
    fn accept_language_weights_and_bounds() {
        let r = parse_accept_language("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5, ja;q=0");
        let tags: Vec<_> = r.iter().map(|r| r.tag.as_str()).collect();
        assert_eq!(tags, ["fr-CH", "fr", "en", "de"]);
        assert!(parse_accept_language("fr;q=2, de;q=0.1234, es;q=abc").is_empty());
        let long = "fr,".repeat(10_000);
        assert_eq!(parse_accept_language(&long).len(), MAX_ACCEPT_LANGUAGE_RANGES);
    }

    #[test]
    fn overrides_are_checked() {
        let config = |tag: &str, id: &str, text: &str| I18nConfig {
            messages: BTreeMap::from([(tag.to_owned(), BTreeMap::from([(id.to_owned(), text.to_owned())]))]),
            ..Default::default()
        };
        let c = Catalogues::new(&config("fr", "signin-heading", "Bienvenue")).unwrap();
        assert_eq!(c.negotiate(Some("fr"), None, None).text("signin-heading"), "Bienvenue");
        for (tag, id, text, option) in [
            ("x!", "signin-heading", "x", "i18n.messages.x!"),
            ("fr", "nope", "x", "i18n.messages.fr.nope"),
            ("fr", "signin-with", "Avec { $fournisseur }", "i18n.messages.fr.signin-with"),
            ("fr", "signin-heading", "a\nother = b", "i18n.messages.fr.signin-heading"),
            ("fr", "signin-heading", "{ unclosed", "i18n.messages.fr.signin-heading"),
            ("fr", "signin-heading", "", "i18n.messages.fr.signin-heading"),
        ] {
            let err = Catalogues::new(&config(tag, id, text)).unwrap_err();
            assert_eq!(err.option, option, "{text:?}");
        }
    }

    /// Every English message, as a configuration gives one: `prefix` + the
    /// English text (placeables kept).
    fn whole_catalogue(prefix: &str) -> BTreeMap<String, String> {
        ENGLISH
            .lines()
            .filter(|l| !l.starts_with('#') && l.contains(" = "))
            .map(|l| {
                let (id, text) = l.split_once(" = ").unwrap();
                (id.to_owned(), format!("{prefix}{text}"))
            })
            .collect()
    }

    #[test]
    fn an_application_adds_a_locale_of_its_own_with_every_message() {
        let sv = whole_catalogue("SV ");
        assert_eq!(sv.len(), message_ids(ENGLISH).len());
        let fa = whole_catalogue("FA ");
        let config = I18nConfig {
            messages: BTreeMap::from([("sv".to_owned(), sv.clone()), ("fa".to_owned(), fa)]),
            ..Default::default()
        };
        let c = Catalogues::new(&config).unwrap();
        // Offered beside the built-in ones, matched like them.
        let m = c.negotiate(None, None, Some("sv-SE, en;q=0.5"));
        assert_eq!(m.tag(), "sv");
        assert!(!m.rtl());
        assert_eq!(m.text_with("signin-with", &[("provider", "GitHub")]), "SV Sign in with GitHub");
        assert_eq!(c.negotiate(Some("fr"), None, None).tag(), "fr", "built-in ones stay");
        // Persian is written right to left: its pages get dir="rtl".
        let m = c.negotiate(Some("fa"), None, None);
        assert!(m.rtl());
        // It can be the default, and `locales` can narrow to it.
        let c = Catalogues::new(&I18nConfig {
            default_locale: Some("sv".into()),
            locales: Some(vec!["sv".into(), "en".into()]),
            ..config.clone()
        })
        .unwrap_err();
        assert_eq!(c.option, "i18n.messages.fa", "fa is given but not offered");
        let c = Catalogues::new(&I18nConfig {
            default_locale: Some("sv".into()),
            locales: Some(vec!["sv".into(), "en".into()]),
            messages: BTreeMap::from([("sv".to_owned(), sv.clone())]),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(c.negotiate(None, None, Some("de")).tag(), "sv");

        // A missing message is named; so is an unknown one, and a bad tag.
        let mut partial = sv.clone();
        partial.remove("signin-heading");
        let err = Catalogues::new(&I18nConfig {
            messages: BTreeMap::from([("sv".to_owned(), partial)]),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(err.option, "i18n.messages.sv.signin-heading");
        let mut extra = sv.clone();
        extra.insert("signin-titel".into(), "x".into());
        let err =
            Catalogues::new(&I18nConfig { messages: BTreeMap::from([("sv".to_owned(), extra)]), ..Default::default() })
                .unwrap_err();
        assert_eq!(err.option, "i18n.messages.sv.signin-titel");
        for bad in ["<script>", "s v", "", "x".repeat(40).as_str()] {
            let err = Catalogues::new(&I18nConfig {
                messages: BTreeMap::from([(bad.to_owned(), sv.clone())]),
                ..Default::default()
            })
            .unwrap_err();
            assert_eq!(err.option, format!("i18n.messages.{bad}"));
        }
        let err = Catalogues::new(&I18nConfig { default_locale: Some("sv".into()), ..Default::default() }).unwrap_err();
        assert_eq!(err.option, "i18n.defaultLocale");
    }

    #[test]
    fn pseudo_locale_is_offered_only_when_listed() {
        let c = Catalogues::new(&I18nConfig::default()).unwrap();
        assert_eq!(c.negotiate(Some("en-XA"), None, None).tag(), "en");
        let c = Catalogues::new(&I18nConfig { locales: Some(vec!["en".into(), "en-XA".into()]), ..Default::default() })
            .unwrap();
        let m = c.negotiate(Some("en-xa"), None, None);
        assert_eq!(m.tag(), "en-XA");
        assert_eq!(m.text_with("signin-with", &[("provider", "GitHub")]), "Šîîĝñ îîñ ŵîîţĥ GitHub");
    }
}
