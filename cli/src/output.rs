//! Exit statuses, failures, and the findings a report prints (as text, or
//! as JSON with `--json`).

use std::io::Write;

use serde_json::{json, Value};

/// The command's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// All is well.
    Ok = 0,
    /// Problems were found, or the work failed.
    Problems = 1,
    /// The command line or the configuration could not be used.
    Usage = 2,
}

/// Why a command stopped: printed as one line on stderr.
#[derive(Debug)]
pub enum Failure {
    /// The arguments or the configuration file cannot be used (exit 2).
    Usage(String),
    /// The work itself failed: a database refused, a file could not be
    /// written (exit 1).
    Failed(String),
}

impl Failure {
    pub fn exit(&self) -> Exit {
        match self {
            Failure::Usage(_) => Exit::Usage,
            Failure::Failed(_) => Exit::Problems,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Usage(m) | Failure::Failed(m) => f.write_str(m),
        }
    }
}

pub type Outcome = Result<Exit, Failure>;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    /// Worth knowing; not wrong.
    Note,
    /// Will fail or is unsafe: the command exits 1.
    Problem,
}

impl Level {
    fn label(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Note => "note",
            Level::Problem => "problem",
        }
    }
}

/// One finding of a check.
#[derive(Debug, Clone)]
pub struct Finding {
    pub level: Level,
    /// What was checked: `secret`, `providers.github`, `database`, …
    pub topic: String,
    pub message: String,
}

/// The findings of a check, printed at the end.
#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn ok(&mut self, topic: impl Into<String>, message: impl Into<String>) {
        self.push(Level::Ok, topic, message);
    }
    pub fn note(&mut self, topic: impl Into<String>, message: impl Into<String>) {
        self.push(Level::Note, topic, message);
    }
    pub fn problem(&mut self, topic: impl Into<String>, message: impl Into<String>) {
        self.push(Level::Problem, topic, message);
    }
    fn push(&mut self, level: Level, topic: impl Into<String>, message: impl Into<String>) {
        self.findings.push(Finding { level, topic: topic.into(), message: message.into() });
    }

    pub fn problems(&self) -> usize {
        self.findings.iter().filter(|f| f.level == Level::Problem).count()
    }

    /// Print the findings and say how the command exits.
    pub fn print(&self, json: bool, out: &mut dyn Write) -> Outcome {
        let problems = self.problems();
        if json {
            let findings: Vec<Value> = self
                .findings
                .iter()
                .map(|f| json!({ "level": f.level.label(), "topic": f.topic, "message": f.message }))
                .collect();
            print_json(out, &json!({ "ok": problems == 0, "problems": problems, "findings": findings }))?;
        } else {
            for f in &self.findings {
                write_line(out, &format!("{:<8} {}: {}", f.level.label(), f.topic, f.message))?;
            }
            let notes = self.findings.iter().filter(|f| f.level == Level::Note).count();
            write_line(out, &format!("{problems} problem(s), {notes} note(s)"))?;
        }
        Ok(if problems == 0 { Exit::Ok } else { Exit::Problems })
    }
}

pub fn write_line(out: &mut dyn Write, line: &str) -> Result<(), Failure> {
    writeln!(out, "{line}").map_err(|e| Failure::Failed(format!("cannot write the output: {e}")))
}

pub fn print_json(out: &mut dyn Write, value: &Value) -> Result<(), Failure> {
    write_line(out, &serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into()))
}
