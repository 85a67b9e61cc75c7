//! Building [`Stores`] from the config: the options that say which backend
//! serves what.
//!
//! `adapter` (users, accounts, passkeys; sessions and tokens too unless
//! `secondaryStorage` takes them):
//!
//! ```json
//! { "type": "memory" }
//! { "type": "sqlite", "path": "auth.db" }            // or ":memory:"
//! { "type": "postgres", "url": "postgres://…", "poolSize": 10, "schema": "public", "connectTimeout": 5 }
//! { "type": "host" }                                 // adapter.* hooks
//! ```
//!
//! `secondaryStorage: { "type": "redis", "url": … }` (sessions and
//! verification tokens), `rateLimit.store` (counters, parsed by
//! [`crate::ratelimit::config`]) and `encryptTokens` (the backend storing
//! accounts seals their tokens).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::counters::StoreConfig;
#[cfg(feature = "redis")]
use super::redis::{RedisPool, RedisStore};
use super::redis_options::RedisOptions;
#[cfg(feature = "postgres")]
use super::PostgresAdapter;
use super::{
    AccountStore, Adapter, CounterStore, DataStores, HostAdapter, LeaseStore, MemoryAdapter, MemoryCounters,
    MemoryLeases, PasskeyStore, PostgresOptions, Sealing, SessionStore, SqliteAdapter, Stores, VerificationStore,
};
use crate::error::{ConfigError, ErrorType};
use crate::host::Host;

/// The options [`Stores::from_config`] reads.
pub struct StoresConfig<'a> {
    pub adapter: Option<&'a Value>,
    pub secondary_storage: Option<&'a Value>,
    pub encrypt_tokens: bool,
    /// The parsed `rateLimit.store`.
    pub counters: &'a StoreConfig,
    /// The engine's secrets (the first seals tokens).
    pub secrets: &'a [String],
}

/// The backend the `adapter` option names.
enum DataBackend {
    Memory(Arc<MemoryAdapter>),
    Sqlite(Arc<SqliteAdapter>),
    #[cfg(feature = "postgres")]
    Postgres(Arc<PostgresAdapter>),
    Host(Arc<HostAdapter>),
}

/// One backend as each store it serves.
type Served = (Arc<dyn AccountStore>, Arc<dyn SessionStore>, Arc<dyn VerificationStore>, Arc<dyn PasskeyStore>);

/// A counter store, and the leases of the same backend.
type CountersAndLeases = (Arc<dyn CounterStore>, Arc<dyn LeaseStore>);

impl DataBackend {
    /// The backend as each store it serves.
    fn stores(&self) -> Served {
        match self {
            DataBackend::Memory(b) => (b.clone(), b.clone(), b.clone(), b.clone()),
            DataBackend::Sqlite(b) => (b.clone(), b.clone(), b.clone(), b.clone()),
            #[cfg(feature = "postgres")]
            DataBackend::Postgres(b) => (b.clone(), b.clone(), b.clone(), b.clone()),
            DataBackend::Host(b) => (b.clone(), b.clone(), b.clone(), b.clone()),
        }
    }

    /// Its leases, for a backend that has them (not a host's).
    fn leases(&self) -> Option<Arc<dyn LeaseStore>> {
        match self {
            DataBackend::Memory(b) => Some(b.clone()),
            DataBackend::Sqlite(b) => Some(b.clone()),
            #[cfg(feature = "postgres")]
            DataBackend::Postgres(b) => Some(b.clone()),
            DataBackend::Host(_) => None,
        }
    }
}

impl Stores {
    /// Compose the stores the options describe, once per engine. SQLite
    /// opens (and migrates) its file now, so a bad path fails here;
    /// PostgreSQL and Redis connect on first use, so the application can
    /// start while they are down.
    ///
    /// - users, accounts, passkeys: the `adapter`;
    /// - sessions, verification tokens: Redis with `secondaryStorage`, else
    ///   the `adapter`;
    /// - counters: `rateLimit.store` (`"database"`: the adapter's own
    ///   SQLite or PostgreSQL, on its connections);
    /// - leases: the backend serving verification tokens, or, for a host
    ///   adapter or no adapter, the counters' backend.
    pub fn from_config(config: &StoresConfig<'_>, host: Arc<dyn Host>) -> Result<Stores, ConfigError> {
        if config.encrypt_tokens && config.adapter.is_none() {
            return Err(ConfigError::new(
                "encryptTokens",
                "encrypts the tokens an adapter stores; configure an adapter",
            )
            .with_kind(ErrorType::MissingAdapter));
        }
        if config.secondary_storage.is_some() && config.adapter.is_none() {
            return Err(ConfigError::new(
                "secondaryStorage",
                "keeps sessions and verification tokens beside an adapter's users and accounts; configure an adapter",
            )
            .with_kind(ErrorType::MissingAdapter));
        }
        let sealing = if config.encrypt_tokens { Sealing::new(config.secrets) } else { Sealing::none() };
        let backend = config.adapter.map(|value| data_backend(value, host, sealing)).transpose()?;
        let secondary = config.secondary_storage.map(secondary_storage).transpose()?;
        let (counters, counter_leases) = counters(config.counters, backend.as_ref())?;
        let leases = match (&secondary, &backend) {
            (Some(secondary), _) => secondary.leases.clone(),
            (None, Some(backend)) => backend.leases().unwrap_or(counter_leases),
            (None, None) => counter_leases,
        };
        let data = backend.map(|backend| {
            let (accounts, own_sessions, own_tokens, passkeys) = backend.stores();
            let host = match &backend {
                DataBackend::Host(h) => Some(h.clone()),
                _ => None,
            };
            let secondary = secondary.map(|s| (s.sessions, s.tokens));
            DataStores::new(accounts, (own_sessions, own_tokens), passkeys, secondary, host)
        });
        Ok(Stores::new(data, counters, leases))
    }
}

/// The backend the `adapter` option describes, as one [`Adapter`] (tokens
/// stored as given): for tools and tests that use a backend directly. The
/// engine composes [`Stores`] instead.
pub fn from_config(value: &Value, host: Arc<dyn Host>) -> Result<Arc<dyn Adapter>, ConfigError> {
    Ok(match data_backend(value, host, Sealing::none())? {
        DataBackend::Memory(b) => b,
        DataBackend::Sqlite(b) => b,
        #[cfg(feature = "postgres")]
        DataBackend::Postgres(b) => b,
        DataBackend::Host(b) => b,
    })
}

/// What `secondaryStorage` serves: sessions, verification tokens, and the
/// leases kept beside the tokens.
struct Secondary {
    sessions: Arc<dyn SessionStore>,
    tokens: Arc<dyn VerificationStore>,
    leases: Arc<dyn LeaseStore>,
}

/// The store of the `secondaryStorage` option.
fn secondary_storage(value: &Value) -> Result<Secondary, ConfigError> {
    let Value::Object(map) = value else {
        return Err(ConfigError::new(
            "secondaryStorage",
            "must be an object such as { \"type\": \"redis\", \"url\": \"redis://127.0.0.1:6379\" }",
        ));
    };
    match map.get("type").and_then(Value::as_str) {
        Some("redis") => {}
        Some(other) => {
            return Err(ConfigError::new(
                "secondaryStorage.type",
                format!("unknown secondary storage \"{other}\"; the one type is \"redis\""),
            ))
        }
        None => return Err(ConfigError::new("secondaryStorage.type", "is required: \"redis\"")),
    }
    let options = RedisOptions::parse(map, "secondaryStorage", &["type"])?;
    Ok(redis_store(&options, "secondaryStorage")?.secondary)
}

const COUNTERS_OPTION: &str = "rateLimit.store";

/// A backend this build leaves out, asked for by `option`.
#[allow(dead_code)] // every backend may be built in
fn not_built(option: &str, what: &str, feature: &str) -> ConfigError {
    ConfigError::new(
        option,
        format!("this build of libauth has no {what} support (the cargo feature `{feature}` is off); the published packages have it"),
    )
}

/// Everything the Redis backend serves.
struct RedisServes {
    secondary: Secondary,
    counters: Arc<dyn CounterStore>,
}

/// The Redis backend on `options`, for `option`.
fn redis_store(options: &RedisOptions, option: &str) -> Result<RedisServes, ConfigError> {
    #[cfg(feature = "redis")]
    {
        let pool = RedisPool::new(options).map_err(|e| ConfigError::new(format!("{option}.url"), e))?;
        let redis = Arc::new(RedisStore::new(Arc::new(pool)));
        Ok(RedisServes {
            secondary: Secondary { sessions: redis.clone(), tokens: redis.clone(), leases: redis.clone() },
            counters: redis,
        })
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = options;
        Err(not_built(&format!("{option}.type"), "Redis", "redis"))
    }
}

/// A PostgreSQL backend on `options` (for counts), for `option`.
fn postgres_counters(options: &PostgresOptions, option: &str) -> Result<CountersAndLeases, ConfigError> {
    #[cfg(feature = "postgres")]
    {
        let db = Arc::new(PostgresAdapter::new(options).map_err(|e| ConfigError::new(format!("{option}.url"), e))?);
        Ok((db.clone(), db))
    }
    #[cfg(not(feature = "postgres"))]
    {
        let _ = options;
        Err(not_built(&format!("{option}.type"), "PostgreSQL", "postgres"))
    }
}

/// The counter store `rateLimit.store` names, and the leases of the same
/// backend.
fn counters(config: &StoreConfig, backend: Option<&DataBackend>) -> Result<CountersAndLeases, ConfigError> {
    Ok(match config {
        StoreConfig::Memory { max_keys } => {
            (Arc::new(MemoryCounters::with_capacity(*max_keys)), Arc::new(MemoryLeases::new()))
        }
        StoreConfig::Sqlite { path } => {
            let db = Arc::new(SqliteAdapter::open(path).map_err(|e| {
                ConfigError::new(format!("{COUNTERS_OPTION}.path"), format!("cannot open the SQLite database: {e}"))
            })?);
            (db.clone(), db)
        }
        StoreConfig::Postgres(options) => postgres_counters(options, COUNTERS_OPTION)?,
        StoreConfig::Redis(options) => {
            let redis = redis_store(options, COUNTERS_OPTION)?;
            (redis.counters, redis.secondary.leases)
        }
        StoreConfig::Database => match backend {
            Some(DataBackend::Sqlite(db)) => (db.clone(), db.clone()),
            #[cfg(feature = "postgres")]
            Some(DataBackend::Postgres(db)) => (db.clone(), db.clone()),
            _ => return Err(ConfigError::new(
                format!("{COUNTERS_OPTION}.type"),
                "\"database\" uses the adapter's database: configure an `adapter` of type \"sqlite\" or \"postgres\"",
            )),
        },
    })
}

/// The backend the `adapter` option describes.
/// The backend an `adapter` option names, parsed and checked but not
/// opened: what the engine opens, and what a tool (the `libauth` command's
/// `migrate` and `doctor`) inspects without touching the database.
#[derive(Debug, Clone)]
pub enum AdapterOptions {
    Memory,
    /// The file path, or `:memory:`.
    Sqlite(String),
    Postgres(PostgresOptions),
    /// The application's own adapter functions (`adapter.*` hooks).
    Host,
}

impl AdapterOptions {
    /// Parse the `adapter` option; errors name the option at fault.
    pub fn parse(value: &Value) -> Result<AdapterOptions, ConfigError> {
        let Value::Object(options) = value else {
            return Err(ConfigError::new(
                "adapter",
                "must be an object such as { \"type\": \"sqlite\", \"path\": \"auth.db\" }",
            ));
        };
        let kind = match options.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(_) => return Err(ConfigError::new("adapter.type", "must be a string")),
            None => {
                return Err(ConfigError::new(
                    "adapter.type",
                    "is required: \"memory\", \"sqlite\", \"postgres\" or \"host\"",
                ))
            }
        };
        match kind {
            "memory" => {
                allow_only(options, &[])?;
                Ok(AdapterOptions::Memory)
            }
            "sqlite" => {
                allow_only(options, &["path"])?;
                let path = required_string(options, "path", "a file path such as \"auth.db\", or \":memory:\"")?;
                Ok(AdapterOptions::Sqlite(path.to_owned()))
            }
            "postgres" => {
                allow_only(options, &["url", "poolSize", "schema", "connectTimeout"])?;
                let mut pg = PostgresOptions::new(required_string(
                    options,
                    "url",
                    "a connection URL such as \"postgres://user@localhost/db\"",
                )?);
                if let Some(size) = options.get("poolSize") {
                    pg.pool_size =
                        size.as_u64().filter(|n| (1..=1000).contains(n)).ok_or_else(|| {
                            ConfigError::new("adapter.poolSize", "must be a whole number from 1 to 1000")
                        })? as u32;
                }
                if let Some(schema) = options.get("schema") {
                    pg.schema = schema
                        .as_str()
                        .filter(|s| super::postgres_options::is_valid_schema_name(s))
                        .ok_or_else(|| {
                            ConfigError::new(
                                "adapter.schema",
                                "must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63 bytes)",
                            )
                        })?
                        .to_owned();
                }
                if let Some(timeout) = options.get("connectTimeout") {
                    let seconds = timeout.as_f64().filter(|s| *s > 0.0 && *s <= 600.0).ok_or_else(|| {
                        ConfigError::new("adapter.connectTimeout", "must be a number of seconds from 0 to 600")
                    })?;
                    pg.connect_timeout = Duration::from_secs_f64(seconds);
                }
                Ok(AdapterOptions::Postgres(pg))
            }
            "host" => {
                allow_only(options, &[])?;
                Ok(AdapterOptions::Host)
            }
            other => Err(ConfigError::new(
                "adapter.type",
                format!("unknown adapter type \"{other}\"; use \"memory\", \"sqlite\", \"postgres\" or \"host\""),
            )),
        }
    }
}

fn data_backend(value: &Value, host: Arc<dyn Host>, sealing: Sealing) -> Result<DataBackend, ConfigError> {
    match AdapterOptions::parse(value)? {
        AdapterOptions::Memory => Ok(DataBackend::Memory(Arc::new(MemoryAdapter::with_sealing(sealing)))),
        AdapterOptions::Sqlite(path) => {
            let adapter = SqliteAdapter::open(&path)
                .map_err(|e| ConfigError::new("adapter.path", format!("cannot open the SQLite database: {e}")))?;
            Ok(DataBackend::Sqlite(Arc::new(adapter.with_sealing(sealing))))
        }
        AdapterOptions::Postgres(pg) => {
            #[cfg(feature = "postgres")]
            {
                let adapter = PostgresAdapter::new(&pg).map_err(|e| ConfigError::new("adapter.url", e))?;
                Ok(DataBackend::Postgres(Arc::new(adapter.with_sealing(sealing))))
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = (pg, sealing);
                Err(not_built("adapter.type", "PostgreSQL", "postgres"))
            }
        }
        AdapterOptions::Host => {
            let adapter = HostAdapter::new(host).map_err(|missing| {
                ConfigError::new("adapter", format!("the host adapter lacks required methods: {}", missing.join(", ")))
            })?;
            Ok(DataBackend::Host(Arc::new(adapter.with_sealing(sealing))))
        }
    }
}

/// Refuse unknown keys, so a typo (`"poolsize"`) is not silently ignored.
fn allow_only(options: &Map<String, Value>, allowed: &[&str]) -> Result<(), ConfigError> {
    match options.keys().find(|k| k.as_str() != "type" && !allowed.contains(&k.as_str())) {
        Some(key) => Err(ConfigError::new(
            format!("adapter.{key}"),
            if allowed.is_empty() {
                "unknown option; this adapter type takes none".to_owned()
            } else {
                format!("unknown option; this adapter type takes: {}", allowed.join(", "))
            },
        )),
        None => Ok(()),
    }
}

fn required_string<'a>(options: &'a Map<String, Value>, key: &str, example: &str) -> Result<&'a str, ConfigError> {
    match options.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(_) => Err(ConfigError::new(format!("adapter.{key}"), format!("must be a non-empty string: {example}"))),
        None => Err(ConfigError::new(format!("adapter.{key}"), format!("is required: {example}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::NoHooks;
    use serde_json::json;

    fn compose(adapter: Value, secondary: Option<Value>, counters: StoreConfig) -> Result<Stores, ConfigError> {
        let secrets = ["s".repeat(32)];
        let config = StoresConfig {
            adapter: Some(&adapter),
            secondary_storage: secondary.as_ref(),
            encrypt_tokens: false,
            counters: &counters,
            secrets: &secrets,
        };
        Stores::from_config(&config, Arc::new(NoHooks))
    }

    /// Sessions and tokens in Redis, the rest in the adapter: leases go
    /// with the tokens; without secondary storage, the adapter serves
    /// both.
    #[test]
    fn the_composition_follows_the_config() {
        let stores = compose(json!({ "type": "memory" }), None, StoreConfig::memory()).unwrap();
        let data = stores.data().expect("an adapter");
        assert!(data.supports("useVerificationToken"));
        assert!(stores.leases.take_lease("a", std::time::Duration::from_secs(1)).unwrap());
        assert!(!stores.leases.take_lease("a", std::time::Duration::from_secs(1)).unwrap());
        let none = Stores::from_config(
            &StoresConfig {
                adapter: None,
                secondary_storage: None,
                encrypt_tokens: false,
                counters: &StoreConfig::memory(),
                secrets: &["s".repeat(32)],
            },
            Arc::new(NoHooks),
        )
        .unwrap();
        assert!(none.data().is_none());
    }

    /// A build without a backend refuses the config that asks for it,
    /// naming the option, when the engine is built.
    #[test]
    #[cfg(not(feature = "postgres"))]
    fn a_build_without_postgres_names_the_option() {
        let url = "postgres://127.0.0.1/test";
        let e = compose(json!({ "type": "postgres", "url": url }), None, StoreConfig::memory()).err().unwrap();
        assert_eq!(e.option, "adapter.type");
        assert!(e.message.contains("cargo feature `postgres`"), "{}", e.message);
        let counters = StoreConfig::Postgres(PostgresOptions::new(url));
        let e = compose(json!({ "type": "memory" }), None, counters).err().unwrap();
        assert_eq!(e.option, "rateLimit.store.type");
    }

    #[test]
    #[cfg(not(feature = "redis"))]
    fn a_build_without_redis_names_the_option() {
        let redis = json!({ "type": "redis", "url": "redis://127.0.0.1:6379" });
        let e = compose(json!({ "type": "memory" }), Some(redis), StoreConfig::memory()).err().unwrap();
        assert_eq!(e.option, "secondaryStorage.type");
        assert!(e.message.contains("cargo feature `redis`"), "{}", e.message);
        let counters = StoreConfig::Redis(RedisOptions::new("redis://127.0.0.1:6379"));
        let e = compose(json!({ "type": "memory" }), None, counters).err().unwrap();
        assert_eq!(e.option, "rateLimit.store.type");
    }
}
