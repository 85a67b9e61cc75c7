//! Concurrent first sign-ins of one new user from several worker
//! processes on one database (PostgreSQL: one schema; SQLite: one file), as
//! a pre-fork server with database sessions sees them when a user double
//! submits or several tabs sign in at once. Every sign-in must succeed, all
//! with the same user; the database must hold one user row (and one account
//! row for an OAuth-style link), and `createUser` must fire once.
//!
//! The test re-runs its own binary as the worker processes (the ignored
//! test `worker`, selected by name, with its orders in an environment
//! variable). Each worker prints `READY <kind>` when it is set up for the
//! next kind of sign-in and starts on the parent's `GO` (on stdin), so the
//! processes race each other, not just their own threads; then it prints
//! one `RESULT {json}` line per kind.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use common::*;
use libauth_core::store::{from_config, AccountType, Adapter, AdapterAccount, NewUser};
use libauth_core::{HookMap, NoHooks};
use serde_json::{json, Value};

const PROCESSES: usize = 2;
const SIGN_INS_PER_PROCESS: usize = 32;
const WORKER_ENV: &str = "LIBAUTH_FIRST_SIGN_IN_WORKER";

/// The kinds of first sign-in raced, in order. The credentials ones go
/// through the engine (`POST /auth/callback/credentials` with database
/// sessions); the OAuth-style ones call the adapter as the engine's OAuth
/// callback does for a user it does not know (`ensure_user_with_account`),
/// since a provider round trip adds nothing to the race.
const KINDS: [&str; 4] = ["credentials-with-email", "credentials-no-email", "oauth-with-email", "oauth-no-email"];

/// The user a kind signs in, for a run (so reruns never meet old rows).
fn user_for(kind: &str, run: &str) -> Value {
    match kind {
        "credentials-with-email" => {
            json!({ "id": format!("{run}-c1"), "name": "Ada", "email": format!("{run}-c1@example.com") })
        }
        "credentials-no-email" => json!({ "id": format!("{run}-c2"), "name": "Grace" }),
        "oauth-with-email" => json!({ "id": format!("{run}-o1"), "email": format!("{run}-o1@example.com") }),
        _ => json!({ "id": format!("{run}-o2") }),
    }
}

#[test]
#[cfg(feature = "integration")] // the PostgreSQL server
fn concurrent_first_sign_ins_from_two_processes_on_postgres() {
    let schema = temp_schema();
    let config = json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0, "poolSize": 8 });
    let run = libauth_core::random::hex(4);
    race(&config, &run);
    let mut db = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let mut count = |sql: &str| -> i64 { db.query_one(&sql.replace("{s}", &schema.0), &[]).unwrap().get(0) };
    assert_eq!(count("SELECT count(*) FROM \"{s}\".users"), KINDS.len() as i64, "one user row per kind");
    assert_eq!(count("SELECT count(*) FROM \"{s}\".accounts"), 2, "one account row per OAuth kind");
    assert_eq!(
        count("SELECT count(*) FROM \"{s}\".sessions"),
        (2 * PROCESSES * SIGN_INS_PER_PROCESS) as i64,
        "a session per credentials sign-in"
    );
}

#[test]
fn concurrent_first_sign_ins_from_two_processes_on_sqlite() {
    let file = temp_db_path();
    let config = json!({ "type": "sqlite", "path": file.0 });
    let run = libauth_core::random::hex(4);
    race(&config, &run);
    let db = rusqlite::Connection::open(&file.0).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT count(*) FROM users"), KINDS.len() as i64, "one user row per kind");
    assert_eq!(count("SELECT count(*) FROM accounts"), 2, "one account row per OAuth kind");
    assert_eq!(count("SELECT count(*) FROM sessions"), (2 * PROCESSES * SIGN_INS_PER_PROCESS) as i64);
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    /// The next line; `None` at the end of the output.
    fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        let read = self.stdout.read_line(&mut line).expect("read from the worker");
        (read > 0).then(|| line.trim_end().to_owned())
    }

    /// What follows `prefix` on the next line that has it (the test
    /// harness prints its own lines too).
    fn expect(&mut self, prefix: &str) -> String {
        while let Some(line) = self.line() {
            // libtest may have printed `test worker ... ` on the same line.
            if let Some(at) = line.find(prefix) {
                return line[at + prefix.len()..].to_owned();
            }
        }
        let status = self.child.wait().unwrap();
        panic!("the worker ended ({status}) before printing {prefix:?}");
    }
}

/// Start the workers, release them kind by kind, and check what each
/// kind's sign-ins resolved to.
fn race(config: &Value, run: &str) {
    let orders = json!({ "adapter": config, "run": run }).to_string();
    let mut workers: Vec<Worker> = (0..PROCESSES)
        .map(|_| {
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args(["worker", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
                .env(WORKER_ENV, &orders)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("start a worker process");
            let stdin = child.stdin.take().unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            Worker { child, stdin, stdout }
        })
        .collect();
    for kind in KINDS {
        for w in &mut workers {
            assert_eq!(w.expect("READY "), kind);
        }
        for w in &mut workers {
            writeln!(w.stdin, "GO").unwrap();
        }
        let results: Vec<Value> =
            workers.iter_mut().map(|w| serde_json::from_str(&w.expect("RESULT ")).unwrap()).collect();
        let signed_in: u64 = results.iter().map(|r| r["signedIn"].as_u64().unwrap()).sum();
        let created: u64 = results.iter().map(|r| r["created"].as_u64().unwrap()).sum();
        let users: BTreeSet<&str> =
            results.iter().flat_map(|r| r["userIds"].as_array().unwrap()).map(|v| v.as_str().unwrap()).collect();
        let failures: Vec<&Value> = results.iter().flat_map(|r| r["failures"].as_array().unwrap()).collect();
        assert_eq!(signed_in as usize, PROCESSES * SIGN_INS_PER_PROCESS, "{kind}: all signed in: {failures:?}");
        assert_eq!(users.len(), 1, "{kind}: one user for every sign-in: {users:?}");
        assert_eq!(created, 1, "{kind}: created once");
        if kind.starts_with("credentials") {
            assert_eq!(users.first().copied(), user_for(kind, run)["id"].as_str(), "{kind}: the app's own id");
        }
    }
    for mut w in workers {
        drop(w.stdin);
        assert!(w.child.wait().unwrap().success(), "a worker failed");
    }
}

/// One worker process: `SIGN_INS_PER_PROCESS` concurrent sign-ins per
/// kind, reported as `RESULT` lines. Ignored, so `cargo test` runs it only
/// as the child of the tests above (which set its orders).
#[test]
#[ignore = "a worker process of the concurrent first sign-in tests"]
fn worker() {
    let Ok(orders) = std::env::var(WORKER_ENV) else {
        // `cargo test -- --ignored` by hand: nothing to do without orders.
        eprintln!("the worker of the concurrent first sign-in tests runs only as their child process");
        return;
    };
    let orders: Value = serde_json::from_str(&orders).unwrap();
    let run = orders["run"].as_str().unwrap().to_owned();
    let created = Arc::new(AtomicUsize::new(0));
    let counter = created.clone();
    let users_run = run.clone();
    let hooks = HookMap::new()
        .on("providers.credentials.authorize", move |args| {
            Ok(user_for(args["credentials"]["username"].as_str().unwrap_or_default(), &users_run))
        })
        .on("events.createUser", move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(Value::Null)
        });
    let auth = auth(json!({ "adapter": orders["adapter"] }), hooks);
    let db: Arc<dyn Adapter> = from_config(&orders["adapter"], Arc::new(NoHooks)).unwrap();
    let stdin = std::io::stdin();
    for kind in KINDS {
        created.store(0, Ordering::SeqCst);
        println!("READY {kind}");
        let mut go = String::new();
        stdin.lock().read_line(&mut go).unwrap();
        let barrier = Barrier::new(SIGN_INS_PER_PROCESS);
        let outcomes: Vec<Result<(String, bool), String>> = thread::scope(|s| {
            let handles: Vec<_> = (0..SIGN_INS_PER_PROCESS)
                .map(|_| {
                    let (auth, db, barrier, run) = (&auth, &db, &barrier, &run);
                    s.spawn(move || {
                        barrier.wait();
                        sign_in_once(auth, db.as_ref(), kind, run)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("panicked".into()))).collect()
        });
        let ids: BTreeSet<&str> = outcomes.iter().filter_map(|o| o.as_ref().ok()).map(|(id, _)| id.as_str()).collect();
        // The engine's sign-ins count createUser events; the adapter-level
        // ones count the calls that created the user.
        let created = if kind.starts_with("credentials") {
            created.load(Ordering::SeqCst)
        } else {
            outcomes.iter().filter(|o| matches!(o, Ok((_, true)))).count()
        };
        let result = json!({
            "signedIn": outcomes.iter().filter(|o| o.is_ok()).count(),
            "userIds": ids,
            "created": created,
            "failures": outcomes.iter().filter_map(|o| o.as_ref().err()).collect::<Vec<_>>(),
        });
        println!("RESULT {result}");
    }
}

/// One sign-in of `kind`'s user: the user id it resolved to (read back
/// from the database session for the engine's sign-ins) and whether this
/// call created the user (adapter-level kinds only).
fn sign_in_once(auth: &libauth_core::Auth, db: &dyn Adapter, kind: &str, run: &str) -> Result<(String, bool), String> {
    let user = user_for(kind, run);
    if kind.starts_with("credentials") {
        let mut b = Browser::new(auth);
        let res = b.sign_in(kind, "any");
        let to = res.header("location").unwrap_or_default().to_owned();
        if to != ORIGIN {
            return Err(format!("the sign-in went to {to:?}"));
        }
        let token = b.jar.get("authjs.session-token").ok_or("no session cookie")?;
        let stored = libauth_core::session::stored_session_token(token);
        let (_, user) = db.get_session_and_user(&stored).map_err(|e| e.to_string())?.ok_or("no session row")?;
        return Ok((user.id, false));
    }
    let new_user = NewUser { email: user["email"].as_str().map(str::to_owned), ..NewUser::default() };
    let account = AdapterAccount::new(AccountType::OAuth, "github", user["id"].as_str().unwrap());
    db.ensure_user_with_account(&new_user, &account).map(|e| (e.user.id, e.created)).map_err(|e| e.to_string())
}
