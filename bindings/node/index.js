"use strict";
// libauth for Node: Auth.js v5-compatible authentication from one Rust engine.
//
//   const { ServerAuth, getSession, Credentials, TikTok } = require("libauth")
//   app.use("/auth", ServerAuth(config))
//
// The reactive adapter (SolidStart-style `{ GET, POST }`) is
// `ReactiveAuth(config)`; `getSession` takes an Express request or a Web
// `Request` (or an event carrying one). `signIn` / `signOut` serve form
// actions handled on the server: they resolve to `{ url, cookies }` or throw.

const express = require("./lib/express");
const reactive = require("./lib/reactive");
const providers = require("./lib/providers");
const { AuthError, CredentialsSignin, InvalidConfig } = require("./lib/errors");
const { workerThreads } = require("./lib/native");
const actions = require("./lib/actions");

/**
 * The current session, or null: `getSession(req, config)` with an Express
 * request, or `getSession(request, options)` with a Web Request (or an event
 * with `.request`). Pass the same config object given to ServerAuth /
 * ReactiveAuth so the engine built for it is reused.
 */
function getSession(req, config) {
  const web =
    req && (typeof req.headers?.get === "function" || (req.request && typeof req.request.headers?.get === "function"));
  return web ? reactive.getSession(req, config) : express.getSession(req, config);
}

// One assignment per name, so ESM `import { ServerAuth } from "libauth"` sees them.
exports.ServerAuth = express.ServerAuth;
exports.ReactiveAuth = reactive.ReactiveAuth;
exports.getSession = getSession;
exports.signIn = actions.signIn;
exports.signOut = actions.signOut;
exports.signUp = actions.signUp;
exports.requestPasswordReset = actions.requestPasswordReset;
exports.resetPassword = actions.resetPassword;
exports.changePassword = actions.changePassword;
exports.changeEmail = actions.changeEmail;
exports.deleteAccount = actions.deleteAccount;
exports.getAccount = actions.getAccount;
exports.refreshAccount = actions.refreshAccount;
exports.getAccessToken = actions.getAccessToken;
exports.listPasskeys = actions.listPasskeys;
exports.listSessions = actions.listSessions;
exports.endSession = actions.endSession;
exports.endOtherSessions = actions.endOtherSessions;
exports.endAllSessions = actions.endAllSessions;
exports.twoFactorStatus = actions.twoFactorStatus;
exports.beginTotp = actions.beginTotp;
exports.confirmTotp = actions.confirmTotp;
exports.verifySecondFactor = actions.verifySecondFactor;
exports.regenerateRecoveryCodes = actions.regenerateRecoveryCodes;
exports.disableTotp = actions.disableTotp;
exports.renamePasskey = actions.renamePasskey;
exports.deletePasskey = actions.deletePasskey;
exports.Credentials = providers.Credentials;
exports.Password = providers.Password;
exports.TikTok = providers.TikTok;
exports.GitHub = providers.GitHub;
exports.Google = providers.Google;
exports.Apple = providers.Apple;
exports.MicrosoftEntraID = providers.MicrosoftEntraID;
exports.Discord = providers.Discord;
exports.GitLab = providers.GitLab;
exports.Twitter = providers.Twitter;
exports.Facebook = providers.Facebook;
exports.LinkedIn = providers.LinkedIn;
exports.Slack = providers.Slack;
exports.Twitch = providers.Twitch;
exports.Spotify = providers.Spotify;
exports.Keycloak = providers.Keycloak;
exports.Auth0 = providers.Auth0;
exports.Okta = providers.Okta;
exports.Email = providers.Email;
exports.Passkey = providers.Passkey;
exports.AuthError = AuthError;
exports.CredentialsSignin = CredentialsSignin;
exports.InvalidConfig = InvalidConfig;
exports.workerThreads = workerThreads;
