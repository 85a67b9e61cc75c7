//! The storage floor: versioned schemas (numbered migrations with down
//! steps, a readable version, a newer database refused), named leases on
//! every backend that serves them, and the composition of stores the
//! engine builds from the config.

mod common;

use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::*;
use libauth_core::store::migrations::MigrationError;
use libauth_core::store::prelude::*;
use libauth_core::store::{
    postgres, sqlite, AdapterSession, DataStores, MemoryAdapter, MemoryLeases, NewUser, PostgresAdapter,
    PostgresOptions, RedisStore, SqliteAdapter,
};
use proptest::prelude::*;

const LATEST: u32 = 6;

fn tables(path: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_version' ORDER BY name")
        .unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn sqlite_migrates_down_step_by_step_and_up_again() {
    let file = temp_db_path();
    let up = sqlite::migrate_file(&file.0, None).unwrap();
    assert_eq!((up.from, up.to), (0, LATEST));
    assert_eq!(SqliteAdapter::open(&file.0).unwrap().schema_version().unwrap(), LATEST as usize);
    assert!(tables(&file.0).contains(&"leases".to_owned()));

    let down = sqlite::migrate_file(&file.0, Some(2)).unwrap();
    assert_eq!((down.from, down.to), (LATEST, 2));
    assert!(!tables(&file.0).iter().any(|t| t == "leases" || t == "rate_limits"), "{:?}", tables(&file.0));
    assert!(tables(&file.0).contains(&"authenticators".to_owned()));
    assert_eq!(sqlite::migrate_file(&file.0, Some(0)).unwrap().to, 0);
    assert!(tables(&file.0).is_empty(), "every table of libauth's is gone: {:?}", tables(&file.0));

    // Nothing to do is nothing done; up again from nothing.
    assert_eq!(sqlite::migrate_file(&file.0, Some(0)).unwrap(), sqlite::migrate_file(&file.0, Some(0)).unwrap());
    let (current, steps) = sqlite::plan_file(&file.0, None).unwrap();
    assert_eq!((current, steps.len()), (0, LATEST as usize));
    assert_eq!(sqlite::migrate_file(&file.0, None).unwrap().to, LATEST);
    let adapter = SqliteAdapter::open(&file.0).unwrap();
    adapter.create_user(&NewUser { email: Some("a@example.com".into()), ..Default::default() }).unwrap();
}

#[test]
fn sqlite_refuses_a_newer_database_and_an_unknown_target() {
    let file = temp_db_path();
    SqliteAdapter::open(&file.0).unwrap();
    rusqlite::Connection::open(&file.0)
        .unwrap()
        .execute("INSERT INTO schema_version (version) VALUES (9)", [])
        .unwrap();
    let refused = SqliteAdapter::open(&file.0).err().expect("a newer database is refused");
    let expected = MigrationError::NewerDatabase { found: 9, known: LATEST }.to_string();
    assert!(refused.to_string().contains(&expected), "{refused}");
    assert!(refused.to_string().contains("upgrade libauth"), "says what to do: {refused}");
    assert!(sqlite::migrate_file(&file.0, Some(1)).is_err(), "nor migrated down by a library that does not know it");

    let fresh = temp_db_path();
    let unknown = sqlite::migrate_file(&fresh.0, Some(LATEST + 1)).unwrap_err();
    assert!(unknown.to_string().contains("no schema version"), "{unknown}");
}

/// A database written before counters were part of the schema (version 2,
/// with the table the rate-limit store used to make itself) upgrades and
/// keeps its counts.
#[test]
fn sqlite_upgrades_a_version_2_database_with_its_old_counter_table() {
    let file = temp_db_path();
    sqlite::migrate_file(&file.0, Some(2)).unwrap();
    let conn = rusqlite::Connection::open(&file.0).unwrap();
    conn.execute_batch(
        "CREATE TABLE rate_limits (key TEXT NOT NULL, window_ms INTEGER NOT NULL, number INTEGER NOT NULL,
            count INTEGER NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (key, window_ms, number));",
    )
    .unwrap();
    let now = libauth_core::time::now_millis();
    let window = Duration::from_secs(3600);
    let number = now / 3_600_000;
    conn.execute("INSERT INTO rate_limits VALUES ('k', 3600000, ?1, 4, ?2)", [number as i64, (now + 3_600_000) as i64])
        .unwrap();
    drop(conn);
    let adapter = SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(adapter.schema_version().unwrap(), LATEST as usize);
    assert_eq!(adapter.consume("k", 1, window).unwrap().count, 5, "the old count is kept");
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL
fn postgres_migrates_down_and_up_and_refuses_a_newer_database() {
    let schema = temp_schema();
    let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
    let up = postgres::migrate(&options, None).unwrap();
    assert_eq!((up.from, up.to), (0, LATEST));
    let (current, steps) = postgres::plan(&options, Some(1)).unwrap();
    assert_eq!(current, LATEST);
    let sql: Vec<String> = steps.iter().map(|s| postgres::step_sql(s, &schema.0)).collect();
    assert!(sql[0].contains(&format!("DROP TABLE \"{}\".sign_outs", schema.0)), "{sql:?}");
    assert!(sql[1].contains(&format!("ALTER TABLE \"{}\".sessions DROP COLUMN ip", schema.0)), "{sql:?}");
    assert!(sql[2].contains(&format!("ALTER TABLE \"{}\".users DROP COLUMN locale", schema.0)), "{sql:?}");
    assert!(sql[3].contains(&format!("DROP TABLE \"{}\".leases", schema.0)), "{sql:?}");
    assert_eq!(postgres::migrate(&options, Some(1)).unwrap().to, 1);
    let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let count = |client: &mut ::postgres::Client, table: &str| -> i64 {
        client
            .query_one(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2",
                &[&schema.0, &table],
            )
            .unwrap()
            .get(0)
    };
    assert_eq!(count(&mut client, "authenticators"), 0, "version 2 taken back");
    assert_eq!(count(&mut client, "users"), 1, "version 1 kept");
    assert_eq!(postgres::migrate(&options, None).unwrap().to, LATEST);
    let adapter = PostgresAdapter::new(&options).unwrap();
    assert_eq!(adapter.schema_version().unwrap(), LATEST as usize);

    client.execute(&format!("INSERT INTO \"{}\".schema_version (version) VALUES (42)", schema.0), &[]).unwrap();
    let refused = PostgresAdapter::new(&options).unwrap().get_user("x").unwrap_err();
    assert!(refused.to_string().contains("newer than this libauth knows"), "{refused}");
    assert!(postgres::migrate(&options, None).is_err());
}

/// Of many threads taking one lease at once, exactly one gets it; a
/// released lease is free again; an expired one too.
fn lease_contract(leases: Arc<dyn LeaseStore>) {
    let name = format!("refresh:{}", uuid_like());
    let barrier = Arc::new(Barrier::new(8));
    let winners: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (leases, barrier, name) = (leases.clone(), barrier.clone(), name.clone());
                scope.spawn(move || {
                    barrier.wait();
                    leases.take_lease(&name, Duration::from_secs(30)).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).filter(|won| *won).count()
    });
    assert_eq!(winners, 1, "one holder");
    assert!(!leases.take_lease(&name, Duration::from_secs(30)).unwrap(), "held");
    leases.release_lease(&name).unwrap();
    leases.release_lease(&name).unwrap(); // releasing a free lease is fine
    assert!(leases.take_lease(&name, Duration::from_millis(200)).unwrap(), "free after release");
    std::thread::sleep(Duration::from_millis(400));
    assert!(leases.take_lease(&name, Duration::from_secs(30)).unwrap(), "free after its ttl");
}

fn uuid_like() -> String {
    libauth_core::random::hex(8)
}

#[test]
fn leases_in_memory() {
    lease_contract(Arc::new(MemoryLeases::new()));
    lease_contract(Arc::new(MemoryAdapter::new()));
}

#[test]
fn leases_in_sqlite_hold_across_connections() {
    let file = temp_db_path();
    lease_contract(Arc::new(SqliteAdapter::open(&file.0).unwrap()));
    // Another connection to the file (another process, say) sees the holder.
    let (one, two) = (SqliteAdapter::open(&file.0).unwrap(), SqliteAdapter::open(&file.0).unwrap());
    assert!(one.take_lease("shared", Duration::from_secs(30)).unwrap());
    assert!(!two.take_lease("shared", Duration::from_secs(30)).unwrap());
    one.release_lease("shared").unwrap();
    assert!(two.take_lease("shared", Duration::from_secs(30)).unwrap());
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL
fn leases_in_postgres() {
    let schema = temp_schema();
    let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
    lease_contract(Arc::new(PostgresAdapter::new(&options).unwrap()));
}

fn redis_store() -> Arc<RedisStore> {
    use libauth_core::store::redis::{RedisOptions, RedisPool};
    let url = std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
    let options = RedisOptions { key_prefix: format!("libauth-test:{}:", uuid_like()), ..RedisOptions::new(url) };
    Arc::new(RedisStore::new(Arc::new(RedisPool::new(&options).unwrap())))
}

#[test]
#[cfg(feature = "integration")] // Redis
fn leases_in_redis() {
    lease_contract(redis_store());
}

/// Users in SQLite, sessions in Redis: deleting the user ends their
/// sessions there too; a session whose user vanished reads as none and is
/// removed; a session for no user is refused.
#[test]
#[cfg(feature = "integration")] // Redis
fn sessions_kept_apart_follow_their_users() {
    let file = temp_db_path();
    let sql = Arc::new(SqliteAdapter::open(&file.0).unwrap());
    let redis = redis_store();
    let db = DataStores::new(
        sql.clone(),
        (sql.clone(), sql.clone()),
        sql.clone(),
        Some((redis.clone(), redis.clone())),
        None,
    );
    let later = libauth_core::time::now_millis() as i64 + 60_000;
    let user = db.users.create_user(&NewUser { email: Some("s@example.com".into()), ..Default::default() }).unwrap();
    for token in ["a", "b"] {
        db.create_session(&AdapterSession { session_token: token.into(), user_id: user.id.clone(), expires: later })
            .unwrap();
    }
    assert!(sql.get_session_and_user("a").unwrap().is_none(), "not in SQL");
    assert_eq!(db.session_and_user("a").unwrap().unwrap().1, user);
    let orphan = AdapterSession { session_token: "c".into(), user_id: "nobody".into(), expires: later };
    assert!(db.create_session(&orphan).is_err());

    sql.delete_user(&user.id).unwrap(); // behind the composition's back
    assert!(db.session_and_user("a").unwrap().is_none(), "the user is gone");
    assert!(redis.get_session("a").unwrap().is_none(), "and so is the orphaned session");

    let user = db.users.create_user(&NewUser::default()).unwrap();
    db.create_session(&AdapterSession { session_token: "d".into(), user_id: user.id.clone(), expires: later }).unwrap();
    db.delete_user(&user.id).unwrap();
    assert!(redis.get_session("d").unwrap().is_none(), "deleted with the user");
    assert!(db.session_and_user("b").unwrap().is_none(), "the first user's other session reads as none");
    assert!(redis.get_session("b").unwrap().is_none(), "and is removed by that read");
}

/// `delete_user_sessions` ends exactly one user's sessions, on every
/// backend that stores sessions.
#[test]
fn a_users_sessions_end_together_and_no_one_elses() {
    let file = temp_db_path();
    let backends: Vec<Arc<dyn Adapter>> =
        vec![Arc::new(MemoryAdapter::new()), Arc::new(SqliteAdapter::open(&file.0).unwrap())];
    for backend in backends {
        let later = libauth_core::time::now_millis() as i64 + 60_000;
        let (ada, bob) =
            (backend.create_user(&NewUser::default()).unwrap(), backend.create_user(&NewUser::default()).unwrap());
        for (i, user) in [&ada, &ada, &bob].iter().enumerate() {
            let session = AdapterSession { session_token: format!("t{i}"), user_id: user.id.clone(), expires: later };
            backend.create_session(&session).unwrap();
        }
        assert_eq!(backend.delete_user_sessions(&ada.id).unwrap(), 2);
        assert!(backend.get_session_and_user("t0").unwrap().is_none());
        assert!(backend.get_session_and_user("t2").unwrap().is_some(), "another user's session stays");
        assert_eq!(backend.delete_user_sessions(&ada.id).unwrap(), 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any walk of targets leaves the database at the last one, and the
    /// planned steps match what was applied; targets past the newest are
    /// refused without changing anything.
    #[test]
    fn any_sequence_of_targets_lands_where_asked(targets in proptest::collection::vec(0u32..=LATEST + 1, 1..8)) {
        let file = temp_db_path();
        let mut at = 0;
        for target in targets {
            match sqlite::migrate_file(&file.0, Some(target)) {
                Ok(done) => {
                    prop_assert!(target <= LATEST);
                    prop_assert_eq!((done.from, done.to), (at, target));
                    at = target;
                }
                Err(_) => prop_assert!(target > LATEST),
            }
            prop_assert_eq!(sqlite::plan_file(&file.0, Some(at)).unwrap(), (at, Vec::new()));
        }
    }
}
