//! One [`Spec`] per built-in provider, from its documentation
//! (`docs/providers/<name>.md`): real paths under the simulator's base URL,
//! the provider's error shape and quirks, a documented-looking profile, and
//! the user libauth must map it to.

use serde_json::json;

use crate::{ClientAuth, ErrorStyle, IssStyle, Refresh, Spec};

/// The Entra ID tenant the tests configure.
pub const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";

fn base(name: &'static str) -> Spec {
    Spec {
        name,
        authorize_path: "/authorize".into(),
        token_path: "/token".into(),
        userinfo_path: None,
        jwks_path: None,
        issuer_path: None,
        client_auth: ClientAuth::Basic,
        pkce_required: false,
        form_post: false,
        form_post_extra: Vec::new(),
        error_style: ErrorStyle::Rfc6749,
        scope_array: false,
        refresh: Refresh::Rotate,
        expires_in: 3600,
        profile: json!({}),
        id_token_claims: None,
        iss_style: IssStyle::Issuer,
        required_scopes: Vec::new(),
        required_params: Vec::new(),
        expect_user: json!({}),
        expect_account_id: "",
    }
}

/// An OIDC provider served with discovery at `issuer_path`.
fn oidc(name: &'static str, issuer_path: &str) -> Spec {
    let path = issuer_path.trim_end_matches('/');
    Spec {
        authorize_path: format!("{path}/authorize"),
        token_path: format!("{path}/token"),
        userinfo_path: Some(format!("{path}/userinfo")),
        jwks_path: Some(format!("{path}/jwks")),
        issuer_path: Some(issuer_path.into()),
        required_scopes: vec!["openid", "profile", "email"],
        ..base(name)
    }
}

fn standard_claims(sub: &str) -> serde_json::Value {
    json!({ "sub": sub, "name": "Sim User", "email": "sim@example.com", "email_verified": true,
            "picture": "https://img.example/sim.png" })
}

fn standard_user() -> serde_json::Value {
    json!({ "name": "Sim User", "email": "sim@example.com", "image": "https://img.example/sim.png" })
}

pub fn google() -> Spec {
    Spec {
        // Google writes `iss` with or without the scheme, and keeps its
        // refresh tokens.
        iss_style: IssStyle::Bare,
        refresh: Refresh::Keep,
        id_token_claims: Some(json!({ "sub": "110169484474386276334", "azp": crate::CLIENT_ID, "name": "Sim User",
            "email": "sim@example.com", "email_verified": true, "picture": "https://img.example/sim.png", "hd": "example.com" })),
        expect_user: standard_user(),
        expect_account_id: "110169484474386276334",
        ..oidc("google", "/google")
    }
}

/// Apple, checking ES256 client secrets against `public_pem`.
pub fn apple(public_pem: String, key_id: &str, team_id: &str) -> Spec {
    Spec {
        authorize_path: "/auth/authorize".into(),
        token_path: "/auth/token".into(),
        jwks_path: Some("/auth/keys".into()),
        issuer_path: Some(String::new()),
        client_auth: ClientAuth::AppleJwt { public_pem, key_id: key_id.into(), team_id: team_id.into() },
        form_post: true,
        form_post_extra: vec![(
            "user".into(),
            r#"{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"jane@privaterelay.appleid.com"}"#.into(),
        )],
        error_style: ErrorStyle::Rfc6749,
        refresh: Refresh::Keep,
        id_token_claims: Some(json!({ "sub": "001234.abcdef0123456789.1234", "email": "jane@privaterelay.appleid.com",
            "email_verified": "true", "is_private_email": "true", "auth_time": 1_700_000_000 })),
        required_scopes: vec!["name", "email"],
        required_params: vec![("response_mode", "form_post")],
        expect_user: json!({ "name": "Jane Appleseed", "email": "jane@privaterelay.appleid.com", "image": null }),
        expect_account_id: "001234.abcdef0123456789.1234",
        ..base("apple")
    }
}

pub fn entra() -> Spec {
    let t = TENANT;
    Spec {
        authorize_path: format!("/{t}/oauth2/v2.0/authorize"),
        token_path: format!("/{t}/oauth2/v2.0/token"),
        jwks_path: Some(format!("/{t}/discovery/v2.0/keys")),
        issuer_path: Some(format!("/{t}/v2.0")),
        error_style: ErrorStyle::Entra,
        iss_style: IssStyle::Tenant,
        id_token_claims: Some(json!({ "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "tid": t, "ver": "2.0",
            "oid": "00000000-0000-0000-66f3-3332eca7ea81", "name": "Megan Bowen", "email": "meganb@contoso.com",
            "preferred_username": "meganb@contoso.com" })),
        required_scopes: vec!["openid", "profile", "email", "User.Read"],
        expect_user: json!({ "name": "Megan Bowen", "email": "meganb@contoso.com", "image": null }),
        expect_account_id: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
        ..base("microsoft-entra-id")
    }
}

pub fn discord() -> Spec {
    Spec {
        authorize_path: "/api/oauth2/authorize".into(),
        token_path: "/api/oauth2/token".into(),
        userinfo_path: Some("/api/users/@me".into()),
        profile: json!({ "id": "80351110224678912", "username": "nelly", "discriminator": "0", "global_name": "Nelly",
            "avatar": "8342729096ea3675442027381ff50dfe", "email": "nelly@discord.com", "verified": true }),
        required_scopes: vec!["identify", "email"],
        expect_user: json!({ "name": "Nelly", "email": "nelly@discord.com",
            "image": "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png" }),
        expect_account_id: "80351110224678912",
        ..base("discord")
    }
}

pub fn gitlab() -> Spec {
    Spec {
        authorize_path: "/gitlab/oauth/authorize".into(),
        token_path: "/gitlab/oauth/token".into(),
        userinfo_path: Some("/gitlab/api/v4/user".into()),
        profile: json!({ "id": 1, "username": "john_smith", "name": null, "email": "john@example.com",
            "avatar_url": "https://gitlab.example/uploads/avatar.png", "state": "active",
            "confirmed_at": "2024-01-02T03:04:05.000Z" }),
        required_scopes: vec!["read_user"],
        expect_user: json!({ "name": "john_smith", "email": "john@example.com",
            "image": "https://gitlab.example/uploads/avatar.png" }),
        expect_account_id: "1",
        ..base("gitlab")
    }
}

pub fn twitter() -> Spec {
    Spec {
        authorize_path: "/i/oauth2/authorize".into(),
        token_path: "/2/oauth2/token".into(),
        userinfo_path: Some("/2/users/me".into()),
        pkce_required: true,
        profile: json!({ "data": { "id": "2244994945", "name": "X Dev", "username": "XDevelopers",
            "profile_image_url": "https://pbs.twimg.com/profile_images/x_normal.jpg" } }),
        required_scopes: vec!["users.read", "tweet.read", "offline.access"],
        expect_user: json!({ "name": "X Dev", "email": null, "image": "https://pbs.twimg.com/profile_images/x_normal.jpg" }),
        expect_account_id: "2244994945",
        ..base("twitter")
    }
}

pub fn facebook() -> Spec {
    Spec {
        authorize_path: "/v23.0/dialog/oauth".into(),
        token_path: "/v23.0/oauth/access_token".into(),
        userinfo_path: Some("/v23.0/me".into()),
        client_auth: ClientAuth::Post,
        error_style: ErrorStyle::Graph,
        refresh: Refresh::None,
        profile: json!({ "id": "10158000000000001", "name": "Sim Fb", "email": "fb@example.com",
            "picture": { "data": { "height": 50, "width": 50, "is_silhouette": false, "url": "https://platform-lookaside.fbsbx.com/x.jpg" } } }),
        required_scopes: vec!["email"],
        expect_user: json!({ "name": "Sim Fb", "email": "fb@example.com", "image": "https://platform-lookaside.fbsbx.com/x.jpg" }),
        expect_account_id: "10158000000000001",
        ..base("facebook")
    }
}

pub fn linkedin() -> Spec {
    Spec {
        client_auth: ClientAuth::Post,
        refresh: Refresh::None,
        id_token_claims: Some(standard_claims("782bbtaQ")),
        expect_user: standard_user(),
        expect_account_id: "782bbtaQ",
        ..oidc("linkedin", "/oauth")
    }
}

pub fn slack() -> Spec {
    Spec {
        error_style: ErrorStyle::Slack,
        refresh: Refresh::None,
        id_token_claims: Some(json!({ "sub": "U0R7JM", "https://slack.com/user_id": "U0R7JM",
            "https://slack.com/team_id": "T0R7GR", "name": "Sim User", "email": "sim@example.com",
            "email_verified": true, "picture": "https://img.example/sim.png" })),
        expect_user: standard_user(),
        expect_account_id: "U0R7JM",
        ..oidc("slack", "/slack")
    }
}

pub fn twitch() -> Spec {
    Spec {
        client_auth: ClientAuth::Post,
        error_style: ErrorStyle::Twitch,
        scope_array: true,
        id_token_claims: Some(json!({ "sub": "713936733", "preferred_username": "simstreamer",
            "email": "sim@example.com", "picture": "https://static-cdn.jtvnw.net/sim.png" })),
        required_scopes: vec!["openid", "user:read:email"],
        required_params: vec![("claims", r#"{"id_token":{"email":null,"picture":null,"preferred_username":null}}"#)],
        expect_user: json!({ "name": "simstreamer", "email": "sim@example.com", "image": "https://static-cdn.jtvnw.net/sim.png" }),
        expect_account_id: "713936733",
        ..oidc("twitch", "/oauth2")
    }
}

pub fn spotify() -> Spec {
    Spec {
        token_path: "/api/token".into(),
        userinfo_path: Some("/v1/me".into()),
        refresh: Refresh::Keep,
        profile: json!({ "id": "wizzler", "display_name": "JM Wizzler", "email": "email@example.com",
            "images": [{ "url": "https://i.scdn.co/image/ab67616d00001e02", "height": 300, "width": 300 }] }),
        required_scopes: vec!["user-read-email"],
        expect_user: json!({ "name": "JM Wizzler", "email": "email@example.com", "image": "https://i.scdn.co/image/ab67616d00001e02" }),
        expect_account_id: "wizzler",
        ..base("spotify")
    }
}

pub fn keycloak() -> Spec {
    Spec {
        id_token_claims: Some(standard_claims("f2a1c3e4-kc")),
        expect_user: standard_user(),
        expect_account_id: "f2a1c3e4-kc",
        ..oidc("keycloak", "/realms/test")
    }
}

pub fn auth0() -> Spec {
    Spec {
        // Auth0's issuer ends with a slash.
        id_token_claims: Some(standard_claims("auth0|5f7c8ec7c33c6c004bbafe82")),
        expect_user: standard_user(),
        expect_account_id: "auth0|5f7c8ec7c33c6c004bbafe82",
        ..oidc("auth0", "/tenant/")
    }
}

pub fn okta() -> Spec {
    Spec {
        id_token_claims: Some(standard_claims("00uid4BxXw6I6TV4m0g3")),
        expect_user: standard_user(),
        expect_account_id: "00uid4BxXw6I6TV4m0g3",
        ..oidc("okta", "/oauth2/default")
    }
}
