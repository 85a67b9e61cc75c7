//! The built-in providers, by name: the one place that lists them. Each is
//! a module implementing [`ProviderBehaviour`] (see `behaviour.rs`).

use super::oauth::ProviderBehaviour;
use super::{
    apple, auth0, discord, entra, facebook, github, gitlab, google, keycloak, linkedin, okta, slack, spotify, tiktok,
    twitch, twitter,
};

/// Every built-in provider, by the name its config gives as `builtin`.
pub const BUILTINS: &[(&str, &dyn ProviderBehaviour)] = &[
    ("tiktok", &tiktok::TikTok),
    ("github", &github::GitHub),
    ("google", &google::Google),
    ("apple", &apple::Apple),
    ("microsoft-entra-id", &entra::MicrosoftEntraId),
    ("discord", &discord::Discord),
    ("gitlab", &gitlab::GitLab),
    ("twitter", &twitter::Twitter),
    ("facebook", &facebook::Facebook),
    ("linkedin", &linkedin::LinkedIn),
    ("slack", &slack::Slack),
    ("twitch", &twitch::Twitch),
    ("spotify", &spotify::Spotify),
    ("keycloak", &keycloak::Keycloak),
    ("auth0", &auth0::Auth0),
    ("okta", &okta::Okta),
];

/// The behaviour of `{ "builtin": name }`.
pub fn builtin(name: &str) -> Option<&'static dyn ProviderBehaviour> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_registered_by_name() {
        assert!(builtin("tiktok").is_some() && builtin("github").is_some());
        for (name, b) in BUILTINS {
            assert_eq!(b.defaults().id, Some(*name), "a built-in's id is its name");
            assert!(b
                .defaults()
                .style
                .and_then(|s| s.logo)
                .is_some_and(|l| l.starts_with("data:image/svg+xml;base64,")));
        }
        assert!(builtin("nope").is_none());
    }
}
