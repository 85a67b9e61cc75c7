//! Versioned schemas: each SQL backend's schema is a list of numbered
//! [`Migration`]s, each with the SQL that applies it and the SQL that takes
//! it back. A database records the versions it has applied (its
//! `schema_version` table); its version is the highest. This module plans
//! the steps from one version to another; the backends run them, in one
//! transaction under one lock (SQLite's write lock, a PostgreSQL advisory
//! lock), so two processes migrating at once apply each step once.
//!
//! A database newer than the library (a version it does not know, written
//! by a newer libauth) is refused with [`MigrationError::NewerDatabase`]:
//! the library would not know what its tables mean.

/// One schema change. Never edit a shipped one: append a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// 1, 2, 3, … in order.
    pub version: u32,
    /// What it does, for `--status` and `--dry-run` listings.
    pub name: &'static str,
    /// The SQL that applies it.
    pub up: &'static str,
    /// The SQL that takes it back (dropping what `up` made, data included).
    pub down: &'static str,
}

/// Which way a step goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
}

/// One step of a plan: a migration applied or taken back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub migration: Migration,
    pub direction: Direction,
}

impl Step {
    /// The SQL this step runs.
    pub fn sql(&self) -> &'static str {
        match self.direction {
            Direction::Up => self.migration.up,
            Direction::Down => self.migration.down,
        }
    }

    /// The version the database has once this step ran.
    pub fn version_after(&self) -> u32 {
        match self.direction {
            Direction::Up => self.migration.version,
            Direction::Down => self.migration.version - 1,
        }
    }
}

/// What a migration run did: the version before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Migrated {
    pub from: u32,
    pub to: u32,
}

/// Why a migration cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MigrationError {
    #[error(
        "the database has schema version {found}, newer than this libauth knows ({known}): upgrade libauth, or migrate the database down with the libauth that wrote it"
    )]
    NewerDatabase { found: u32, known: u32 },
    #[error("there is no schema version {asked}: this libauth knows versions 0 to {known}")]
    UnknownTarget { asked: u32, known: u32 },
}

/// The newest version in `list`.
pub fn latest(list: &[Migration]) -> u32 {
    list.last().map_or(0, |m| m.version)
}

/// The steps from `current` to `target` (`None`: the newest): the
/// migrations above `current` up to `target` in order, or those above
/// `target` up to `current` taken back newest first.
pub fn plan(list: &[Migration], current: u32, target: Option<u32>) -> Result<Vec<Step>, MigrationError> {
    let known = latest(list);
    if current > known {
        return Err(MigrationError::NewerDatabase { found: current, known });
    }
    let target = target.unwrap_or(known);
    if target > known {
        return Err(MigrationError::UnknownTarget { asked: target, known });
    }
    Ok(if target >= current {
        list.iter()
            .filter(|m| m.version > current && m.version <= target)
            .map(|&migration| Step { migration, direction: Direction::Up })
            .collect()
    } else {
        list.iter()
            .rev()
            .filter(|m| m.version > target && m.version <= current)
            .map(|&migration| Step { migration, direction: Direction::Down })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: [Migration; 3] = [
        Migration { version: 1, name: "one", up: "u1", down: "d1" },
        Migration { version: 2, name: "two", up: "u2", down: "d2" },
        Migration { version: 3, name: "three", up: "u3", down: "d3" },
    ];

    fn sql(steps: &[Step]) -> Vec<&str> {
        steps.iter().map(Step::sql).collect()
    }

    #[test]
    fn plans_up_down_and_nothing() {
        assert_eq!(sql(&plan(&LIST, 0, None).unwrap()), ["u1", "u2", "u3"]);
        assert_eq!(sql(&plan(&LIST, 1, Some(2)).unwrap()), ["u2"]);
        assert_eq!(sql(&plan(&LIST, 3, Some(1)).unwrap()), ["d3", "d2"]);
        assert_eq!(sql(&plan(&LIST, 3, Some(0)).unwrap()), ["d3", "d2", "d1"]);
        assert!(plan(&LIST, 2, Some(2)).unwrap().is_empty());
        assert_eq!(plan(&LIST, 3, Some(1)).unwrap().last().unwrap().version_after(), 1);
    }

    #[test]
    fn refuses_a_newer_database_and_an_unknown_target() {
        assert_eq!(plan(&LIST, 4, None), Err(MigrationError::NewerDatabase { found: 4, known: 3 }));
        assert_eq!(plan(&LIST, 4, Some(1)), Err(MigrationError::NewerDatabase { found: 4, known: 3 }));
        assert_eq!(plan(&LIST, 0, Some(9)), Err(MigrationError::UnknownTarget { asked: 9, known: 3 }));
    }

    /// Every backend's list is numbered 1, 2, 3, … and has a down step for
    /// each up step.
    #[test]
    fn the_backends_lists_are_numbered_in_order_with_down_steps() {
        #[cfg(feature = "postgres")]
        let lists = [crate::store::sqlite::MIGRATIONS, crate::store::postgres::MIGRATIONS];
        #[cfg(not(feature = "postgres"))]
        let lists = [crate::store::sqlite::MIGRATIONS];
        for list in lists {
            for (index, m) in list.iter().enumerate() {
                assert_eq!(m.version as usize, index + 1, "{}", m.name);
                assert!(!m.up.trim().is_empty() && !m.down.trim().is_empty(), "{}", m.name);
            }
        }
    }
}
