//! Test hooks under `/__sim/`. None of this exists at TikTok; it lets a developer or a test drive
//! the simulator over HTTP (the Rust API in `lib.rs` does the same in-process).

use crate::config::{Failure, SimConfig, SimUser};
use crate::server::{Req, Resp, State};
use serde_json::{json, Value};
use std::time::Duration;

fn json_resp(status: u16, v: &Value) -> Resp {
    Resp {
        status,
        headers: vec![
            ("Content-Type".into(), "application/json; charset=utf-8".into()),
            ("Cache-Control".into(), "no-store".into()),
        ],
        body: serde_json::to_vec_pretty(v).expect("JSON"),
    }
}

fn bad(msg: impl std::fmt::Display) -> Resp {
    json_resp(400, &json!({ "error": msg.to_string() }))
}

fn body_json(req: &Req) -> Result<Value, Resp> {
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(&req.body).map_err(|e| bad(format!("body is not JSON: {e}")))
}

/// RFC 7396 JSON merge patch.
pub(crate) fn merge_patch(target: &mut Value, patch: &Value) {
    if let Value::Object(p) = patch {
        if !target.is_object() {
            *target = json!({});
        }
        let t = target.as_object_mut().expect("object");
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    } else {
        *target = patch.clone();
    }
}

/// Apply a merge patch to the config; the result must still pass [`SimConfig::validate`].
pub(crate) fn patch_config(cfg: &SimConfig, patch: &Value) -> Result<SimConfig, String> {
    let mut v = serde_json::to_value(cfg).map_err(|e| e.to_string())?;
    merge_patch(&mut v, patch);
    let new: SimConfig = serde_json::from_value(v).map_err(|e| format!("invalid config: {e}"))?;
    new.validate()?;
    Ok(new)
}

pub(crate) fn patch_user(user: &SimUser, patch: &Value) -> Result<SimUser, String> {
    let mut v = serde_json::to_value(user).map_err(|e| e.to_string())?;
    merge_patch(&mut v, patch);
    serde_json::from_value(v).map_err(|e| format!("invalid user: {e}"))
}

fn index(st: &State) -> Value {
    let u = crate::provider_urls(&st.base_url);
    json!({
        "simulator": "TikTok Login Kit (OAuth 2.0, API v2)",
        "urls": u,
        "client_key": st.config.client_key,
        "redirect_uris": st.config.redirect_uris,
        "hooks": {
            "GET /__sim/": "this index",
            "GET /__sim/state": "counts of codes and tokens, pending failures, clock offset",
            "GET /__sim/config": "current config (durations in seconds, keys *_secs)",
            "POST /__sim/config": "JSON merge patch of the config, e.g. {\"pkce\":\"hex\"}",
            "GET /__sim/user": "the test user's profile",
            "POST /__sim/user": "JSON merge patch of the test user's profile (PUT too)",
            "POST /__sim/fail": "queue a failure for the next request to one endpoint, e.g. {\"endpoint\":\"token\",\"error\":\"server_error\",\"error_description\":\"boom\"}",
            "DELETE /__sim/fail": "drop all queued failures",
            "POST /__sim/advance": "move the simulator's clock forward: {\"seconds\": 7200}",
            "POST /__sim/reset": "back to the startup config and user; forget codes, tokens, failures, clock offset",
        },
        "authorize_query_parameters": {
            "sim_action": "approve | deny | consent",
            "sim_grant": "scopes the user grants (comma-separated, repeatable); the rest are refused",
            "sim_error": "with sim_action=deny: the error value (default access_denied)",
            "sim_error_description": "with sim_action=deny: the error_description",
        },
    })
}

pub(crate) fn handle(st: &mut State, method: &str, path: &str, req: &Req) -> Resp {
    let path = path.strip_prefix("/__sim").unwrap_or(path);
    match (method, path) {
        ("GET", "" | "/") => json_resp(200, &index(st)),
        ("GET", "/state") => json_resp(200, &st.summary()),
        ("GET", "/config") => json_resp(200, &serde_json::to_value(&st.config).expect("config")),
        ("POST" | "PATCH" | "PUT", "/config") => {
            let patch = match body_json(req) {
                Ok(p) => p,
                Err(r) => return r,
            };
            match patch_config(&st.config, &patch) {
                Ok(new) => {
                    st.config = new;
                    json_resp(200, &serde_json::to_value(&st.config).expect("config"))
                }
                Err(e) => bad(e),
            }
        }
        ("GET", "/user") => json_resp(200, &serde_json::to_value(&st.config.user).expect("user")),
        ("POST" | "PATCH" | "PUT", "/user") => {
            let patch = match body_json(req) {
                Ok(p) => p,
                Err(r) => return r,
            };
            match patch_user(&st.config.user, &patch) {
                Ok(u) => {
                    st.config.user = u;
                    json_resp(200, &serde_json::to_value(&st.config.user).expect("user"))
                }
                Err(e) => bad(e),
            }
        }
        ("POST", "/fail") => {
            let v = match body_json(req) {
                Ok(p) => p,
                Err(r) => return r,
            };
            // One failure or a list of them.
            let list = if v.is_array() { v } else { Value::Array(vec![v]) };
            match serde_json::from_value::<Vec<Failure>>(list) {
                Ok(fs) => {
                    for f in fs {
                        st.push_failure(f);
                    }
                    json_resp(200, &json!({ "pending_failures": st.pending_failures() }))
                }
                Err(e) => bad(format!("invalid failure: {e}")),
            }
        }
        ("GET", "/fail") => json_resp(200, &json!({ "pending_failures": st.pending_failures() })),
        ("DELETE", "/fail") => {
            st.clear_failures();
            json_resp(200, &json!({ "pending_failures": [] }))
        }
        ("POST", "/advance") => {
            let v = match body_json(req) {
                Ok(p) => p,
                Err(r) => return r,
            };
            match v.get("seconds").and_then(Value::as_f64) {
                Some(s) if s.is_finite() && (0.0..1e12).contains(&s) => {
                    st.advance(Duration::from_secs_f64(s));
                    json_resp(200, &json!({ "clock_offset_secs": st.clock_offset().as_secs_f64() }))
                }
                _ => bad("expected {\"seconds\": <non-negative number>}"),
            }
        }
        ("POST", "/reset") => {
            st.reset();
            json_resp(200, &json!({ "reset": true }))
        }
        _ => json_resp(404, &json!({ "error": "unknown /__sim/ route; GET /__sim/ lists them" })),
    }
}
