//! The built-in Slack provider ("Sign in with Slack", OpenID Connect), as
//! Auth.js's Slack: issuer `https://slack.com` (endpoints by discovery), the
//! nonce check only (Auth.js's checks), the standard claims as the user.
//! Slack's token endpoint answers errors as `{"ok": false, "error": …}`
//! with HTTP 200, which the standard token handling treats as errors.

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Checks};

/// A Slack-style mark drawn for this button (Slack's owner asked Simple
/// Icons to remove its logo; this is a plain drawing of four bars), as an
/// inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PGcgZmlsbD0iI2ZmZiI+PHJlY3QgeD0iOCIgeT0iMSIgd2lkdGg9IjMuNSIgaGVpZ2h0PSIxMCIgcng9IjEuNzUiLz48cmVjdCB4PSIxMyIgeT0iOCIgd2lkdGg9IjEwIiBoZWlnaHQ9IjMuNSIgcng9IjEuNzUiLz48cmVjdCB4PSIxMi41IiB5PSIxMyIgd2lkdGg9IjMuNSIgaGVpZ2h0PSIxMCIgcng9IjEuNzUiLz48cmVjdCB4PSIxIiB5PSIxMi41IiB3aWR0aD0iMTAiIGhlaWdodD0iMy41IiByeD0iMS43NSIvPjwvZz48L3N2Zz4=";

pub const ISSUER: &str = "https://slack.com";

/// Slack's behaviour (`{ "builtin": "slack" }`).
pub struct Slack;

impl ProviderBehaviour for Slack {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("slack"),
            name: Some("Slack"),
            issuer: Some(ISSUER.into()),
            checks: Some(Checks { pkce: false, state: false, nonce: true }),
            style: Some(ButtonStyle::new(LOGO, "#611f69", "#fff")),
            ..BuiltinDefaults::default()
        }
    }
}
