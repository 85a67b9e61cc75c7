//! A busy PostgreSQL pool is load, not an outage: with far more concurrent
//! database-session reads than pooled connections, and reads slowed down
//! in the database itself, every read is either answered or told to retry
//! (503 with `Retry-After`; `Overloaded` from `get_session`), none is
//! answered "no session", and the circuit breaker never opens (it would
//! turn the next reads into "no session" at once).
//!
//! Uses the server on 127.0.0.1:5432 (a schema of its own, dropped after).

mod common;

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use libauth_core::store::{from_config, Adapter, AdapterError};
use libauth_core::{AuthRequest, ErrorType, NoHooks};
use serde_json::json;

const READERS: usize = 256;
const POOL_SIZE: u32 = 4;
/// Each session read sleeps this long in the database.
const SLOW_READ: &str = "0.025";

#[derive(Debug)]
enum Outcome {
    Session,
    Busy,
    Other(String),
}

#[test]
fn a_busy_pool_answers_or_asks_to_retry_and_never_trips_the_breaker() {
    let schema = temp_schema();
    // connectTimeout is also how long a call waits for a busy connection:
    // 256 reads of 25 ms on 4 connections need about 1.6 s, so some reads
    // wait longer than this and must be told to retry.
    let adapter = json!({
        "type": "postgres", "url": postgres_url(), "schema": schema.0,
        "poolSize": POOL_SIZE, "connectTimeout": 1
    });
    let auth = auth(json!({ "adapter": adapter }), hooks());
    let mut b = Browser::new(&auth);
    assert_eq!(location(&b.sign_in("ada", "secret")), ORIGIN);
    let cookie = b.cookie_header();

    // Slow every session read down, in the server: the sessions table
    // behind a view whose filter sleeps per row.
    let mut admin = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let s = &schema.0;
    admin
        .batch_execute(&format!(
            "CREATE FUNCTION \"{s}\".slowly() RETURNS boolean LANGUAGE sql VOLATILE
                 AS 'SELECT true FROM pg_sleep({SLOW_READ})';
             ALTER TABLE \"{s}\".sessions RENAME TO sessions_fast;
             CREATE VIEW \"{s}\".sessions AS SELECT * FROM \"{s}\".sessions_fast WHERE \"{s}\".slowly();"
        ))
        .unwrap();

    let barrier = Arc::new(Barrier::new(READERS));
    let started = Instant::now();
    let outcomes: Vec<(Outcome, Duration)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..READERS)
            .map(|i| {
                let (auth, barrier, cookie) = (&auth, barrier.clone(), cookie.clone());
                scope.spawn(move || {
                    barrier.wait();
                    let t = Instant::now();
                    let req = AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
                    // Half through the route, half through `get_session`.
                    let outcome = if i % 2 == 0 {
                        let res = auth.handle(&req);
                        match (res.status, res.header("retry-after")) {
                            (200, _) if res.json().unwrap()["user"]["email"] == "ada@example.com" => Outcome::Session,
                            (503, Some("1")) if res.set_cookies().count() == 0 => Outcome::Busy,
                            _ => Outcome::Other(format!("{} {}", res.status, res.body_str())),
                        }
                    } else {
                        match auth.get_session(&req) {
                            Ok(Some(_)) => Outcome::Session,
                            Err(e) if e.error_type == ErrorType::Overloaded => Outcome::Busy,
                            other => Outcome::Other(format!("{other:?}")),
                        }
                    };
                    (outcome, t.elapsed())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("no panic")).collect()
    });
    let burst = started.elapsed();
    let answered = outcomes.iter().filter(|(o, _)| matches!(o, Outcome::Session)).count();
    let busy = outcomes.iter().filter(|(o, _)| matches!(o, Outcome::Busy)).count();
    let others: Vec<&str> = outcomes
        .iter()
        .filter_map(|(o, _)| match o {
            Outcome::Other(what) => Some(what.as_str()),
            _ => None,
        })
        .collect();
    assert!(others.is_empty(), "every read is answered or told to retry: {others:?}");
    assert_eq!(answered + busy, READERS, "nothing lost");
    assert!(answered >= POOL_SIZE as usize, "the pool kept serving: {answered} answered");
    assert!(busy > 0, "more reads than the pool can serve within the wait are told to retry");
    let slowest = outcomes.iter().map(|(_, t)| *t).max().unwrap();
    assert!(slowest < Duration::from_secs(5), "no read waits much past the 1 s wait: {slowest:?}");

    // The breaker is closed: the next read is answered, at once.
    let t = Instant::now();
    assert_eq!(b.session()["user"]["email"], "ada@example.com");
    let after = t.elapsed();
    assert!(after < Duration::from_millis(500), "{after:?}");
    eprintln!(
        "busy pool: {READERS} readers on {POOL_SIZE} connections, reads of {SLOW_READ} s: {answered} answered, \
         {busy} told to retry (503 / Overloaded), slowest {slowest:?}, burst {burst:?}; next read {after:?}"
    );
}

/// `Overloaded` is its own, retryable error, named by the operation, and
/// the engine's `Overloaded` type (503), not `AdapterError`.
#[test]
fn a_busy_pool_is_a_retryable_overloaded_error() {
    let schema = temp_schema();
    let config = json!({
        "type": "postgres", "url": postgres_url(), "schema": schema.0, "poolSize": 1, "connectTimeout": 1
    });
    let adapter: Arc<dyn Adapter> = from_config(&config, Arc::new(NoHooks)).unwrap();
    adapter.get_user("warm-up").unwrap();
    // Hold the only connection in a slow call on another thread.
    let holder = {
        let adapter = adapter.clone();
        let s = schema.0.clone();
        let mut admin = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
        admin
            .batch_execute(&format!(
                "CREATE FUNCTION \"{s}\".slowly() RETURNS boolean LANGUAGE sql VOLATILE
                     AS 'SELECT true FROM pg_sleep(1.5)';
                 ALTER TABLE \"{s}\".users RENAME TO users_fast;
                 CREATE VIEW \"{s}\".users AS SELECT * FROM \"{s}\".users_fast WHERE \"{s}\".slowly();
                 INSERT INTO \"{s}\".users_fast (id) VALUES ('slow');"
            ))
            .unwrap();
        thread::spawn(move || adapter.get_user("slow"))
    };
    thread::sleep(Duration::from_millis(200));
    let err = adapter.get_session_and_user("any").unwrap_err();
    assert!(matches!(err, AdapterError::Overloaded { operation: "getSessionAndUser", .. }), "{err:?}");
    assert!(err.is_retryable());
    assert_eq!(libauth_core::AuthError::from(err).error_type, ErrorType::Overloaded);
    assert!(holder.join().unwrap().unwrap().is_some(), "the slow call itself succeeds");
    assert!(adapter.get_session_and_user("any").unwrap().is_none(), "and the pool serves again");
}
