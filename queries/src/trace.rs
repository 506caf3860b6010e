//! The step trace every recipe document opens with.
//!
//! A reader must be able to tell a complete answer from a partial one without reading the
//! code: each step says what it did, what it found and how long it took; partial results
//! are `WARN:` lines; a step that finds nothing says so in a sentence with the nearest
//! names, so "no callers" is never confused with "wrong name".

use std::time::Instant;

use serde::Serialize;

use crate::render::{seconds, Md};

/// One executed step.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Step {
    pub(crate) what: String,
    pub(crate) result: String,
    pub(crate) seconds: f64,
}

/// The steps of one recipe run and its warnings.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct Trace {
    pub(crate) steps: Vec<Step>,
    pub(crate) warnings: Vec<String>,
}

impl Trace {
    /// Runs `f` as a step named `what`; `f` returns its value and a one-line result.
    pub(crate) fn step<T, E>(
        &mut self,
        what: &str,
        f: impl FnOnce() -> Result<(T, String), E>,
    ) -> Result<T, E> {
        let started = Instant::now();
        let (value, result) = f()?;
        self.steps.push(Step {
            what: what.to_string(),
            result,
            seconds: started.elapsed().as_secs_f64(),
        });
        Ok(value)
    }

    pub(crate) fn warn(&mut self, text: impl Into<String>) {
        self.warnings.push(text.into());
    }

    /// `## Steps executed`, one line per step, then the warnings.
    pub(crate) fn render(&self, md: &mut Md) {
        md.h2("Steps executed");
        for s in &self.steps {
            md.line(&format!(
                "- {} → {} ({})",
                s.what,
                s.result,
                seconds(std::time::Duration::from_secs_f64(s.seconds))
            ));
        }
        for w in &self.warnings {
            md.line(&format!("- WARN: {w}"));
        }
        md.blank();
    }
}
