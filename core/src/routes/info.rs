//! `GET providers` and `GET csrf`.

use serde_json::{json, Map, Value};

use super::{Ctx, Reply};

/// `{ <id>: { id, name, type, signinUrl, callbackUrl } }`.
pub fn providers(ctx: &mut Ctx) -> Reply {
    let base = ctx.base_url();
    let mut map = Map::new();
    for p in ctx.auth.providers.iter() {
        map.insert(
            p.id.clone(),
            json!({
                "id": p.id,
                "name": p.name,
                "type": p.provider_type().as_str(),
                "signinUrl": format!("{base}/signin/{}", p.id),
                "callbackUrl": format!("{base}/callback/{}", p.id),
            }),
        );
    }
    Reply::json(Value::Object(map))
}

/// `{ csrfToken }`, setting the CSRF cookie when there is no valid one.
pub fn csrf(ctx: &mut Ctx) -> Reply {
    let token = ctx.csrf_token();
    Reply::Json { status: 200, body: json!({ "csrfToken": token }), no_store: true }
}
