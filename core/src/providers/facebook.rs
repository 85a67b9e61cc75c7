//! The built-in Facebook provider (Facebook Login, OAuth 2), as Auth.js's
//! Facebook: scope `email`, `/me` with explicit `fields=id,name,email,picture`
//! (the Graph API returns only `id` and `name` unless asked), image =
//! `picture.data.url`. Every endpoint is pinned to one Graph API version
//! ([`GRAPH_VERSION`]; an unversioned call uses the app's oldest available
//! version, which changes under the app). Errors are Graph API error
//! objects, `{"error": {message, type, code, fbtrace_id}}`: `fbtrace_id` is
//! what Facebook's support asks for, logged as the `log_id`.

use serde_json::{Map, Value};

use super::oauth::{standard_token_response, standard_userinfo_response, ProviderBehaviour};
use super::oauth::{BuiltinDefaults, ButtonStyle, ClientAuth, Endpoint, ProfileMap};
use crate::oauth::types::OAuthError;

/// Facebook's "f" (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTkuMTAxIDIzLjY5MXYtNy45OEg2LjYyN3YtMy42NjdoMi40NzR2LTEuNThjMC00LjA4NSAxLjg0OC01Ljk3OCA1Ljg1OC01Ljk3OC40MDEgMCAuOTU1LjA0MiAxLjQ2OC4xMDNhOC42OCA4LjY4IDAgMCAxIDEuMTQxLjE5NXYzLjMyNWE4LjYyMyA4LjYyMyAwIDAgMC0uNjUzLS4wMzYgMjYuODA1IDI2LjgwNSAwIDAgMC0uNzMzLS4wMDljLS43MDcgMC0xLjI1OS4wOTYtMS42NzUuMzA5YTEuNjg2IDEuNjg2IDAgMCAwLS42NzkuNjIyYy0uMjU4LjQyLS4zNzQuOTk1LS4zNzQgMS43NTJ2MS4yOTdoMy45MTlsLS4zODYgMi4xMDMtLjI4NyAxLjU2NGgtMy4yNDZ2OC4yNDVDMTkuMzk2IDIzLjIzOCAyNCAxOC4xNzkgMjQgMTIuMDQ0YzAtNi42MjctNS4zNzMtMTItMTItMTJzLTEyIDUuMzczLTEyIDEyYzAgNS42MjggMy44NzQgMTAuMzUgOS4xMDEgMTEuNjQ3WiIvPjwvc3ZnPg==";

/// The Graph API version every endpoint uses (Auth.js pins v19.0 on the
/// dialog only; v19.0 is past its end of life).
pub const GRAPH_VERSION: &str = "v23.0";

/// Facebook's behaviour (`{ "builtin": "facebook" }`).
pub struct Facebook;

impl ProviderBehaviour for Facebook {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oauth"),
            id: Some("facebook"),
            name: Some("Facebook"),
            authorization: Endpoint::new(
                format!("https://www.facebook.com/{GRAPH_VERSION}/dialog/oauth"),
                &[("scope", "email")],
            ),
            token: Endpoint::new(format!("https://graph.facebook.com/{GRAPH_VERSION}/oauth/access_token"), &[]),
            userinfo: Endpoint::new(
                format!("https://graph.facebook.com/{GRAPH_VERSION}/me"),
                &[("fields", "id,name,email,picture")],
            ),
            profile_map: Some(ProfileMap::of(&["id"], &["name"], &["email"], &["picture.data.url"])),
            style: Some(ButtonStyle::new(LOGO, "#006aff", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    /// Facebook documents the client id and secret as parameters.
    fn client_auth(&self, configured: Option<ClientAuth>) -> ClientAuth {
        configured.unwrap_or(ClientAuth::Post)
    }

    fn token_response(&self, status: u16, body: Value) -> Result<Map<String, Value>, OAuthError> {
        if let Some(e) = graph_error(&body) {
            return Err(OAuthError::Token { status, error: e.code, description: e.message, log_id: e.trace });
        }
        standard_token_response(status, body, None)
    }

    fn userinfo_response(&self, status: u16, body: Value) -> Result<Value, OAuthError> {
        if let Some(e) = graph_error(&body) {
            return Err(OAuthError::UserInfo { status, code: e.code, message: e.message, log_id: e.trace });
        }
        standard_userinfo_response(status, body)
    }
}

struct GraphError {
    code: String,
    message: String,
    trace: Option<String>,
}

/// A Graph API error object: `type` (e.g. `OAuthException`) and numeric
/// `code` as the error's name.
fn graph_error(body: &Value) -> Option<GraphError> {
    let e = body.get("error").filter(|e| e.is_object())?;
    let kind = e.get("type").and_then(Value::as_str).unwrap_or("GraphError");
    let code = e.get("code").map(|c| format!("{kind}/{c}")).unwrap_or_else(|| kind.to_owned());
    Some(GraphError {
        code,
        message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
        trace: e.get("fbtrace_id").and_then(Value::as_str).map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn graph_errors_carry_the_trace_id() {
        let body = json!({"error": {"message": "Invalid verification code format.", "type": "OAuthException",
                                    "code": 100, "fbtrace_id": "AbC123"}});
        let err = Facebook.token_response(400, body.clone()).unwrap_err().to_string();
        assert!(err.contains("OAuthException/100") && err.contains("log_id AbC123"), "{err}");
        let err = Facebook.userinfo_response(400, body).unwrap_err().to_string();
        assert!(err.contains("log_id AbC123"), "{err}");
    }
}
